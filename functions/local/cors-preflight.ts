/**
 * CORS as the deployed REST API does it (lib/constructs/scheduler-api.ts), for the local gateway:
 * the preflight (OPTIONS) API Gateway answers itself on every resource, and the CORS headers of the
 * answers it makes itself (gateway responses). The Lambda answers carry their own
 * (functions/handlers/api/cors.ts).
 */
import { CORS_EXPOSED_HEADERS } from '#handlers/api/cors';

/** The request headers the API reads; the deployed preflight allows the same (CORS_ALLOW_HEADERS in lib/). */
export const PREFLIGHT_ALLOW_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-Match'] as const;
const PREFLIGHT_MAX_AGE_SECONDS = 3600;

/**
 * The preflight's headers: CDK's mock integration names the first allowed origin, and the
 * request's own when it is one of the others; a browser then refuses any origin not named.
 */
export function preflightHeaders(
  origin: string | undefined,
  allowedOrigins: readonly string[],
  methods: readonly string[],
): Record<string, string> {
  const named = origin !== undefined && allowedOrigins.includes(origin) ? origin : (allowedOrigins[0] as string);
  return {
    'Access-Control-Allow-Origin': named,
    'Access-Control-Allow-Headers': PREFLIGHT_ALLOW_HEADERS.join(','),
    'Access-Control-Allow-Methods': [...new Set(methods)].join(','),
    'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
    'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS.join(','),
    Vary: 'Origin',
  };
}

/** Gateway responses echo the request's Origin (their headers cannot choose among several origins). */
export function gatewayResponseCorsHeaders(origin: string | undefined): Record<string, string> {
  return {
    ...(origin === undefined ? {} : { 'Access-Control-Allow-Origin': origin }),
    'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS.join(','),
    Vary: 'Origin',
  };
}
