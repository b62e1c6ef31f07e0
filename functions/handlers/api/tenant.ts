import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * The authenticated tenant, as the authorizer put it into the request context. Never from the
 * body or a header: a route without it is a wiring error, not a client error. The admin scope is
 * not a tenant: the authorizer's policy keeps it off tenant routes (403 at the gateway), and this
 * refuses it again should a route ever be wired around that policy.
 */
export function tenantOf(event: APIGatewayProxyEvent): string {
  const authorizer = event.requestContext?.authorizer;
  const tenantId = authorizer?.tenantId;
  if (typeof tenantId !== 'string' || tenantId === '')
    throw new Error('request reached a handler without an authorized tenant');
  if (authorizer?.scope === 'admin')
    throw new Error('the admin scope reached a tenant route: the authorizer policy should have refused it');
  return tenantId;
}
