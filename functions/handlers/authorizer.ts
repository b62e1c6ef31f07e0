/**
 * API Gateway REQUEST authorizer: `Authorization: Bearer <token>` → the tenant id in the request
 * context. The token's SHA-256 is looked up in the tenants table (one GetItem); missing,
 * malformed, unknown and revoked tokens all get the same 401, with no hint of which. API Gateway
 * caches the answer per Authorization header for a short TTL (lib/constructs/scheduler-api.ts),
 * which is also how long a revoked token may still work.
 *
 * An operator token (its SHA-256 in ADMIN_TOKEN_SHA256, optional) gets `scope: admin` and a policy
 * that allows the admin routes only (ADMIN_ROUTES: the monitoring endpoints, which then answer for
 * all tenants). Every tenant route answers it 403 at the gateway: the operator is not a tenant
 * named `admin` that could create, list or trigger jobs. The policy is cached per token across
 * routes, so it names exactly what the token may call.
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { bearerTokenOf } from '#core/tenants/api-tokens';
import { authenticate } from '#core/tenants/manage-tenants';
import { ADMIN_TENANT_ID } from '#core/tenants/reserved';
import { isAdminToken } from './admin-token.ts';
import { headerOf } from './header-of.ts';
import { tenantRepository } from './wiring.ts';

export { ADMIN_TENANT_ID };

/**
 * What the admin token may call, as `<METHOD>/<path>` patterns of the method ARN: the monitoring
 * views (GET /v1/monitoring/stats for all tenants, GET /v1/monitoring/system). Anything else,
 * including routes added later, is refused to it by default.
 */
export const ADMIN_ROUTES: readonly string[] = ['GET/v1/monitoring/*'];

/** `<METHOD>/<path>` patterns under this API's stage: `*` (every route) or ADMIN_ROUTES. */
function stageResources(methodArn: string, patterns: readonly string[]): string[] {
  const [arnPrefix, stage] = methodArn.split('/');
  return patterns.map((pattern) => `${arnPrefix}/${stage}/${pattern}`);
}

function allow(
  event: APIGatewayRequestAuthorizerEvent,
  context: Record<string, string>,
  patterns: readonly string[],
): APIGatewayAuthorizerResult {
  return {
    principalId: context.tenantId as string,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [
        { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: stageResources(event.methodArn, patterns) },
      ],
    },
    context,
  };
}

export async function handler(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const token = bearerTokenOf(headerOf(event, 'authorization'));
  // API Gateway turns exactly this message into a 401.
  if (!token) throw new Error('Unauthorized');
  if (isAdminToken(token)) return allow(event, { tenantId: ADMIN_TENANT_ID, scope: 'admin' }, ADMIN_ROUTES);
  const grant = await authenticate({ tenants: tenantRepository() }, token);
  if (!grant) throw new Error('Unauthorized');
  // Every route of the stage: the cached policy is reused for whichever route the token calls next.
  return allow(event, { tenantId: grant.tenantId }, ['*']);
}
