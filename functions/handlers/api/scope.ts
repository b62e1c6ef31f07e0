import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from './tenant.ts';

/** Who is asking: a tenant, or the operator with the admin scope (authorizer context `scope: admin`). */
export type CallerScope = { admin: false; tenantId: string } | { admin: true };

/** For the routes that serve both (the monitoring views): the admin scope is no tenant, so it has no tenant id here. */
export function scopeOf(event: APIGatewayProxyEvent): CallerScope {
  if (event.requestContext?.authorizer?.scope === 'admin') return { admin: true };
  return { admin: false, tenantId: tenantOf(event) };
}
