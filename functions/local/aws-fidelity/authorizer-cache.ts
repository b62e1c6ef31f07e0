/**
 * API Gateway's cache of authorizer answers, read from the synthesized template: a REQUEST
 * authorizer with `AuthorizerResultTtlInSeconds` > 0 is invoked once per distinct value of its
 * identity sources in that time, and its policy (allow or deny) and context answer every request
 * carrying the same values meanwhile — a revoked token keeps working until its cached answer ends,
 * as on AWS. An authorizer that fails (401 "Unauthorized", or any error) is not cached.
 */
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import type { CfnTemplate } from './cfn-values.ts';

export interface AuthorizerCacheSettings {
  ttlSeconds: number;
  /** Lower-case header names of the identity sources (`method.request.header.Authorization`). */
  identityHeaders: string[];
}

/** The REST API's authorizer cache as the template declares it; undefined when it has no cached authorizer. */
export function authorizerCacheOf(template: CfnTemplate): AuthorizerCacheSettings | undefined {
  for (const resource of Object.values(template.Resources)) {
    if (resource.Type !== 'AWS::ApiGateway::Authorizer') continue;
    const { AuthorizerResultTtlInSeconds, IdentitySource } = resource.Properties as {
      AuthorizerResultTtlInSeconds?: number;
      IdentitySource?: string;
    };
    // CloudFormation's default for a REQUEST authorizer is 300 s; CDK always writes it.
    const ttlSeconds = AuthorizerResultTtlInSeconds ?? 300;
    if (ttlSeconds <= 0) return undefined;
    const identityHeaders = (IdentitySource ?? '')
      .split(',')
      .map((source) => /^method\.request\.header\.(.+)$/.exec(source.trim())?.[1]?.toLowerCase())
      .filter((name): name is string => name !== undefined);
    return { ttlSeconds, identityHeaders };
  }
  return undefined;
}

/** The answers of one authorizer, by identity-source values, each until its TTL ends. */
export class AuthorizerCache {
  readonly #answers = new Map<string, { result: APIGatewayAuthorizerResult; until: number }>();

  constructor(private readonly settings: AuthorizerCacheSettings) {}

  /** The cache key of a request's headers (lower-case names); undefined when an identity source is missing. */
  keyOf(headers: Record<string, string | string[] | undefined>): string | undefined {
    const values = this.settings.identityHeaders.map((name) => headers[name]);
    if (values.some((value) => value === undefined || value === '')) return undefined;
    return JSON.stringify(values);
  }

  get(key: string, now: number): APIGatewayAuthorizerResult | undefined {
    const cached = this.#answers.get(key);
    if (cached && cached.until > now) return cached.result;
    if (cached) this.#answers.delete(key);
    return undefined;
  }

  put(key: string, result: APIGatewayAuthorizerResult, now: number): void {
    // Bounded: a flood of distinct tokens must not grow the local gateway without end.
    if (this.#answers.size >= 10_000) this.#answers.clear();
    this.#answers.set(key, { result, until: now + this.settings.ttlSeconds * 1000 });
  }
}
