/**
 * CORS headers on the API's own answers. API Gateway answers the preflight (OPTIONS) itself, but
 * with a Lambda proxy integration the actual response's headers are the function's: without
 * `Access-Control-Allow-Origin` on it, a browser refuses every answer the preflight allowed. Each
 * allowed origin is answered with itself (the header holds one origin, never a list), any other
 * with no CORS header at all, and `Vary: Origin` keeps a cache from handing one origin's answer
 * to another.
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ENV, listEnv } from '#adapters/environment';
import { headerOf } from '../header-of.ts';

/** Response headers a browser script may read: the job's version and when to come back. */
export const CORS_EXPOSED_HEADERS = ['ETag', 'Retry-After'] as const;

/** The CORS headers for a request from `origin`, given the allowed origins (empty: CORS off). */
export function corsHeadersFor(origin: string | undefined, allowedOrigins: readonly string[]): Record<string, string> {
  if (allowedOrigins.length === 0) return {};
  if (origin === undefined || !allowedOrigins.includes(origin)) return { Vary: 'Origin' };
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS.join(','),
    Vary: 'Origin',
  };
}

/** Adds the CORS headers to `response` for the request `event`; origins from CORS_ALLOW_ORIGINS. */
export function withCorsHeaders(
  event: Pick<APIGatewayProxyEvent, 'headers'> | undefined,
  response: APIGatewayProxyResult,
): APIGatewayProxyResult {
  const headers = corsHeadersFor(event ? headerOf(event, 'origin') : undefined, listEnv(ENV.corsAllowOrigins));
  if (Object.keys(headers).length === 0) return response;
  return { ...response, headers: { ...response.headers, ...headers } };
}

/** middy: the CORS headers on every answer, the handler's own and the one an error was mapped to. */
export function corsHeaders(): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  const add = async (request: { event: APIGatewayProxyEvent; response?: APIGatewayProxyResult | null }) => {
    if (request.response) request.response = withCorsHeaders(request.event, request.response);
  };
  return { after: add, onError: add };
}
