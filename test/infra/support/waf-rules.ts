/**
 * Reads the synthesized web ACL's rate rules the way WAF applies them to one request, for the
 * statement kinds Chronos' web ACL uses (and, or, not, a size constraint or an exact byte match on
 * a single header). Anything else throws, so a rule this model does not understand cannot pass a
 * test by being misread. A CloudFormation value (the edge secret's dynamic reference, a Fn::Join
 * over the secret's Ref) is compared as its JSON: the distribution's header and the web ACL's
 * search string resolve to the same secret exactly when their JSON is the same.
 */

import { isIP } from 'node:net';

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON walked by the model
type Json = any;

export interface WafRequest {
  /** The address API Gateway sees the connection from (a CloudFront edge, for the console). */
  sourceIp: string;
  /** Lowercase names; a value that is not a string is a CloudFormation value (see above). */
  headers: Record<string, unknown>;
  /** The URI path as WAF sees it (with the stage); `/dev/v1/jobs` when not given. */
  path?: string;
}

/** Which rate rule counts the request, and in whose budget. */
export interface Counted {
  rule: string;
  key: string;
}

const pathOf = (request: WafRequest): string => request.path ?? '/dev/v1/jobs';
const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

function headerOf(request: WafRequest, fieldToMatch: Json): string | undefined {
  if (fieldToMatch?.UriPath !== undefined && Object.keys(fieldToMatch).length === 1) return pathOf(request);
  const name = fieldToMatch?.SingleHeader?.Name;
  if (typeof name !== 'string' || Object.keys(fieldToMatch).length !== 1) {
    throw new Error(`unmodelled FieldToMatch ${JSON.stringify(fieldToMatch)}`);
  }
  const value = request.headers[name.toLowerCase()];
  return value === undefined ? undefined : asText(value);
}

function asIs(transformations: Json): void {
  if (JSON.stringify(transformations) !== JSON.stringify([{ Priority: 0, Type: 'NONE' }])) {
    throw new Error(`unmodelled TextTransformations ${JSON.stringify(transformations)}`);
  }
}

/** Whether a (scope-down) statement matches the request. */
export function matches(statement: Json, request: WafRequest): boolean {
  const [kind, body] = Object.entries(statement)[0] as [string, Json];
  switch (kind) {
    case 'AndStatement':
      return body.Statements.every((s: Json) => matches(s, request));
    case 'OrStatement':
      return body.Statements.some((s: Json) => matches(s, request));
    case 'NotStatement':
      return !matches(body.Statement, request);
    case 'SizeConstraintStatement': {
      asIs(body.TextTransformations);
      if (body.ComparisonOperator !== 'GT') throw new Error(`unmodelled operator ${body.ComparisonOperator}`);
      const value = headerOf(request, body.FieldToMatch);
      // A missing header is no match for any size constraint.
      return value !== undefined && Buffer.byteLength(value) > body.Size;
    }
    case 'ByteMatchStatement': {
      asIs(body.TextTransformations);
      const value = headerOf(request, body.FieldToMatch);
      if (value === undefined) return false;
      if (body.PositionalConstraint === 'EXACTLY') return value === asText(body.SearchString);
      if (body.PositionalConstraint === 'CONTAINS') return value.includes(asText(body.SearchString));
      throw new Error(`unmodelled ${body.PositionalConstraint}`);
    }
    default:
      throw new Error(`unmodelled statement ${kind}`);
  }
}

/** The rate-based rules that count this request, each with the key it is counted under. */
export function countedBy(rules: Json[], request: WafRequest): Counted[] {
  const counted: Counted[] = [];
  for (const rule of rules) {
    const rate = rule.Statement.RateBasedStatement;
    if (!rate) continue;
    if (rate.ScopeDownStatement && !matches(rate.ScopeDownStatement, request)) continue;
    const key = keyOf(rate, request);
    if (key !== undefined) counted.push({ rule: rule.Name, key });
  }
  return counted;
}

function keyOf(rate: Json, request: WafRequest): string | undefined {
  switch (rate.AggregateKeyType) {
    case 'IP':
      return `ip:${request.sourceIp}`;
    case 'FORWARDED_IP': {
      const config = rate.ForwardedIPConfig;
      const value = request.headers[String(config.HeaderName).toLowerCase()];
      // A missing header: WAF does not apply the rule at all.
      if (value === undefined) return undefined;
      // WAF takes the first address of the header.
      const first = asText(value).split(',')[0]?.trim() ?? '';
      if (isIP(first) !== 0) return `forwarded:${first}`;
      if (config.FallbackBehavior === 'NO_MATCH') return undefined;
      throw new Error('a MATCH fallback would block the request outright');
    }
    case 'CUSTOM_KEYS': {
      const keys = rate.CustomKeys as Json[];
      if (keys.length === 1 && keys[0].UriPath) {
        asIs(keys[0].UriPath.TextTransformations);
        return `path:${pathOf(request)}`;
      }
      if (keys.length !== 1 || !keys[0].Header) throw new Error(`unmodelled CustomKeys ${JSON.stringify(keys)}`);
      asIs(keys[0].Header.TextTransformations);
      const value = request.headers[String(keys[0].Header.Name).toLowerCase()];
      // A request without the key's header is not counted by the rule.
      return value === undefined ? undefined : `header:${asText(value)}`;
    }
    default:
      throw new Error(`unmodelled AggregateKeyType ${rate.AggregateKeyType}`);
  }
}
