/**
 * The local gateway caches the authorizer's answers as the synthesized authorizer declares (its
 * TTL and identity source, read from the template, not copied): one invocation per token per TTL,
 * a policy judged again for each method, failures never cached, a request without the identity
 * source never served from the cache.
 */
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { AuthorizerCache, authorizerCacheOf } from '#local/aws-fidelity/authorizer-cache';
import type { CfnTemplate } from '#local/aws-fidelity/cfn-values';
import { synthesizedStacks } from '#local/aws-fidelity/synthesized-stacks';

const allow: APIGatewayAuthorizerResult = {
  principalId: 'tenant-a',
  policyDocument: { Version: '2012-10-17', Statement: [] },
  context: { tenantId: 'tenant-a' },
};

const authorizerTemplate = (properties: Record<string, unknown>): CfnTemplate =>
  ({ Resources: { Auth: { Type: 'AWS::ApiGateway::Authorizer', Properties: properties } } }) as CfnTemplate;

describe('the authorizer cache', () => {
  it("is the synthesized authorizer's: 30 s per Authorization header", async () => {
    expect(authorizerCacheOf((await synthesizedStacks()).stateless)).toEqual({
      ttlSeconds: 30,
      identityHeaders: ['authorization'],
    });
  });

  it('follows the template: no cache at TTL 0, several identity sources, none without an authorizer', () => {
    expect(authorizerCacheOf(authorizerTemplate({ AuthorizerResultTtlInSeconds: 0 }))).toBeUndefined();
    expect(
      authorizerCacheOf(
        authorizerTemplate({
          AuthorizerResultTtlInSeconds: 60,
          IdentitySource: 'method.request.header.Authorization, method.request.header.X-Tenant',
        }),
      ),
    ).toEqual({ ttlSeconds: 60, identityHeaders: ['authorization', 'x-tenant'] });
    expect(authorizerCacheOf({ Resources: {} } as CfnTemplate)).toBeUndefined();
  });

  it('answers a token from the cache until its TTL ends, and never a request without the header', () => {
    const cache = new AuthorizerCache({ ttlSeconds: 30, identityHeaders: ['authorization'] });
    const key = cache.keyOf({ authorization: 'Bearer t1' }) as string;
    expect(cache.keyOf({})).toBeUndefined();
    expect(cache.keyOf({ authorization: '' })).toBeUndefined();
    expect(cache.get(key, 0)).toBeUndefined();
    cache.put(key, allow, 1_000);
    expect(cache.get(key, 30_999)).toBe(allow);
    expect(cache.get(cache.keyOf({ authorization: 'Bearer t2' }) as string, 2_000)).toBeUndefined();
    expect(cache.get(key, 31_000)).toBeUndefined();
  });
});
