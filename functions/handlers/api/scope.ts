import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from './tenant.ts';

/** Who is asking: a tenant, or the operator with the admin scope (authorizer context `scope: admin`). */
export interface CallerScope {
  tenantId: string;
  admin: boolean;
}

export function scopeOf(event: APIGatewayProxyEvent): CallerScope {
  return { tenantId: tenantOf(event), admin: event.requestContext?.authorizer?.scope === 'admin' };
}
