/**
 * API Gateway caches the authorizer's policy per token and reuses it for every route that token
 * calls next: the admin token's policy itself must allow the monitoring routes and no tenant route,
 * whichever route it was first issued for. (The local gateway asks the authorizer every time, so
 * the e2e tests cannot see a cached policy.)
 */
import { createHash } from 'node:crypto';
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OBSERVABILITY_ENV } from '#adapters/observability-environment';
import { ROUTES } from '#handlers/api/routes';
import { handler } from '#handlers/authorizer';
import { policyAllows } from '#local/authorizer-policy';

const ADMIN_TOKEN = 'chronos-unit-operator-token';
const STAGE_ARN = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod';
let previous: string | undefined;

beforeAll(() => {
  previous = process.env[OBSERVABILITY_ENV.adminTokenSha256];
  process.env[OBSERVABILITY_ENV.adminTokenSha256] = createHash('sha256').update(ADMIN_TOKEN).digest('hex');
});
afterAll(() => {
  if (previous === undefined) delete process.env[OBSERVABILITY_ENV.adminTokenSha256];
  else process.env[OBSERVABILITY_ENV.adminTokenSha256] = previous;
});

/** The method ARN of a route, with its `{param}` placeholders filled in. */
function arnOf(method: string, path: string): string {
  return `${STAGE_ARN}/${method}${path.replace(/\{[^}]+\}/g, '01JAAAAAAAAAAAAAAAAAAAAAAA')}`;
}

function eventFor(methodArn: string): APIGatewayRequestAuthorizerEvent {
  return {
    type: 'REQUEST',
    methodArn,
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
  } as unknown as APIGatewayRequestAuthorizerEvent;
}

const adminRoutes = ROUTES.filter((route) => route.path.startsWith('/v1/monitoring/'));
const tenantRoutes = ROUTES.filter((route) => route.authorized && !route.path.startsWith('/v1/monitoring/'));

describe('the admin token policy', () => {
  it.each(ROUTES.filter((r) => r.authorized).map((r) => [`${r.method} ${r.path}`, r] as const))(
    'issued for %s, allows the monitoring routes and no tenant route',
    async (_name, issuedFor) => {
      const result = await handler(eventFor(arnOf(issuedFor.method, issuedFor.path)));

      expect(result.context).toEqual({ tenantId: 'admin', scope: 'admin' });
      expect(adminRoutes.map((r) => `${r.method} ${r.path}`)).toEqual([
        'GET /v1/monitoring/stats',
        'GET /v1/monitoring/timeseries',
        'GET /v1/monitoring/system',
      ]);
      for (const route of adminRoutes) expect(policyAllows(result, arnOf(route.method, route.path))).toBe(true);
      expect(tenantRoutes.length).toBeGreaterThan(5);
      for (const route of tenantRoutes) {
        expect(policyAllows(result, arnOf(route.method, route.path)), `${route.method} ${route.path}`).toBe(false);
      }
      // Nor any other stage of the API.
      expect(policyAllows(result, arnOf('GET', '/v1/monitoring/system').replace('/prod/', '/dev/'))).toBe(false);
    },
  );
});
