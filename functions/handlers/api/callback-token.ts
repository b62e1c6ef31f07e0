import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * The `{token}` path parameter of the callback routes, as sent: the use cases open it and refuse
 * anything that is not a token Chronos made (401 INVALID_CALLBACK_TOKEN, length checked first).
 */
export function callbackTokenOf(event: APIGatewayProxyEvent): string {
  return event.pathParameters?.token ?? '';
}
