/**
 * API Gateway REQUEST authorizer: `Authorization: Bearer <token>` → the tenant id in the request
 * context. The token's SHA-256 is looked up in the tenants table (one GetItem); missing,
 * malformed, unknown and revoked tokens all get the same 401, with no hint of which. API Gateway
 * caches the answer per Authorization header for a short TTL (lib/constructs/scheduler-api.ts),
 * which is also how long a revoked token may still work.
 *
 * An operator token (its SHA-256 in ADMIN_TOKEN_SHA256, optional) gets `scope: admin`: the
 * monitoring endpoints then answer for all tenants. Its own tenant id is `admin` (a tenant id
 * no tenant can have), so it sees no tenant's jobs.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { OBSERVABILITY_ENV } from '#adapters/observability-environment';
import { bearerTokenOf } from '#core/tenants/api-tokens';
import { authenticate } from '#core/tenants/manage-tenants';
import { ADMIN_TENANT_ID } from '#core/tenants/reserved';
import { tenantRepository } from './wiring.ts';

export { ADMIN_TENANT_ID };

function headerOf(event: APIGatewayRequestAuthorizerEvent, name: string): string | undefined {
  const entry = Object.entries(event.headers ?? {}).find(([key]) => key.toLowerCase() === name);
  return entry?.[1] ?? undefined;
}

/** Every method of every stage of this API: the cached policy must cover all routes. */
function apiWideResource(methodArn: string): string {
  const [arnPrefix, stage] = methodArn.split('/');
  return `${arnPrefix}/${stage}/*`;
}

function tokenMatches(token: string, expectedSha256Hex: string): boolean {
  const actual = createHash('sha256').update(token).digest();
  const expected = Buffer.from(expectedSha256Hex, 'hex');
  return expected.length === actual.length && timingSafeEqual(actual, expected);
}

function allow(event: APIGatewayRequestAuthorizerEvent, context: Record<string, string>): APIGatewayAuthorizerResult {
  return {
    principalId: context.tenantId as string,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: apiWideResource(event.methodArn) }],
    },
    context,
  };
}

export async function handler(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const token = bearerTokenOf(headerOf(event, 'authorization'));
  // API Gateway turns exactly this message into a 401.
  if (!token) throw new Error('Unauthorized');
  const adminSha256 = process.env[OBSERVABILITY_ENV.adminTokenSha256];
  if (adminSha256 && tokenMatches(token, adminSha256)) {
    return allow(event, { tenantId: ADMIN_TENANT_ID, scope: 'admin' });
  }
  const grant = await authenticate({ tenants: tenantRepository() }, token);
  if (!grant) throw new Error('Unauthorized');
  return allow(event, { tenantId: grant.tenantId });
}
