import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * The authenticated tenant, as the authorizer put it into the request context. Never from the
 * body or a header: a route without it is a wiring error, not a client error.
 */
export function tenantOf(event: APIGatewayProxyEvent): string {
  const tenantId = event.requestContext?.authorizer?.tenantId;
  if (typeof tenantId !== 'string' || tenantId === '')
    throw new Error('request reached a handler without an authorized tenant');
  return tenantId;
}
