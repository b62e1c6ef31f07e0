/**
 * How API Gateway reads a Lambda authorizer's IAM policy: the request is allowed when an Allow
 * statement for `execute-api:Invoke` covers the method ARN and no Deny statement does.
 */
import type { APIGatewayAuthorizerResult, Statement } from 'aws-lambda';

/** True when `result` allows invoking `methodArn`. */
export function policyAllows(result: APIGatewayAuthorizerResult, methodArn: string): boolean {
  const statements = result.policyDocument?.Statement ?? [];
  const covering = statements.filter((statement) => coversInvoke(statement) && coversResource(statement, methodArn));
  return covering.some((s) => s.Effect === 'Allow') && !covering.some((s) => s.Effect === 'Deny');
}

function coversInvoke(statement: Statement): boolean {
  const actions = 'Action' in statement ? statement.Action : undefined;
  if (actions === undefined) return false;
  return asList(actions).some((action) => wildcardMatches(action.toLowerCase(), 'execute-api:invoke'));
}

function coversResource(statement: Statement, methodArn: string): boolean {
  const resources = 'Resource' in statement ? statement.Resource : undefined;
  if (resources === undefined) return false;
  return asList(resources).some((resource) => wildcardMatches(resource, methodArn));
}

function asList(value: string | string[]): string[] {
  return Array.isArray(value) ? value : [value];
}

/** IAM wildcards: `*` any run of characters, `?` one character. */
function wildcardMatches(pattern: string, value: string): boolean {
  const regex = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${regex}$`).test(value);
}
