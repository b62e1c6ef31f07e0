/**
 * API Gateway REQUEST authorizer: `Authorization: Bearer <token>` → the tenant id in the request
 * context. Interim single-tenant version: one dev tenant whose token's SHA-256 is configured.
 * Missing, malformed and unknown tokens all get the same 401, with no hint of which.
 *
 * An operator token (its SHA-256 in ADMIN_TOKEN_SHA256, optional) gets `scope: admin`: the
 * monitoring endpoints then answer for all tenants. Its own tenant id is `admin`, so it sees no
 * tenant's jobs.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { ENV, requiredEnv } from '#adapters/environment';
import { OBSERVABILITY_ENV } from '#adapters/observability-environment';

/** The tenant id of the admin scope (the operator is not one of the tenants). */
export const ADMIN_TENANT_ID = 'admin';

const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]{16,512})$/;

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

export async function handler(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const token = BEARER.exec(headerOf(event, 'authorization') ?? '')?.[1];
  const adminSha256 = process.env[OBSERVABILITY_ENV.adminTokenSha256];
  const admin = Boolean(token && adminSha256 && tokenMatches(token, adminSha256));
  if (!token || (!admin && !tokenMatches(token, requiredEnv(ENV.devTokenSha256)))) {
    // API Gateway turns exactly this message into a 401.
    throw new Error('Unauthorized');
  }
  const tenantId = admin ? ADMIN_TENANT_ID : requiredEnv(ENV.devTenantId);
  return {
    principalId: tenantId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: apiWideResource(event.methodArn) }],
    },
    context: admin ? { tenantId, scope: 'admin' } : { tenantId },
  };
}
