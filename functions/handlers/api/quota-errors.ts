/**
 * middy error mapping of quota refusals, registered after httpErrors() so it answers first:
 * RateLimitedError → 429 RATE_LIMITED with Retry-After (the create bucket of POST /v1/jobs, or
 * the trigger bucket of the routes that create runs by hand), QuotaExceededError → 429 QUOTA_EXCEEDED.
 * Anything else is left to httpErrors().
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { QuotaExceededError, RateLimitedError } from '#core/tenants/quota-errors';
import { errorResponse } from './responses.ts';

/** The response for a quota error, or undefined for any other error. */
export function quotaResponseFor(error: unknown): APIGatewayProxyResult | undefined {
  if (error instanceof RateLimitedError) {
    const response =
      error.subject === 'jobs'
        ? errorResponse(429, 'RATE_LIMITED', 'Too many job creations; retry later', [
            { field: 'body', reason: `this tenant may create jobs again in ${error.retryAfterSeconds} s` },
          ])
        : errorResponse(429, 'RATE_LIMITED', 'Too many runs created outside the schedule; retry later', [
            { field: 'triggersPerSecond', reason: `this tenant may create runs again in ${error.retryAfterSeconds} s` },
          ]);
    return { ...response, headers: { ...response.headers, 'retry-after': String(error.retryAfterSeconds) } };
  }
  if (error instanceof QuotaExceededError) {
    return errorResponse(429, 'QUOTA_EXCEEDED', error.message, [{ field: error.quota, reason: 'quota reached' }]);
  }
  return undefined;
}

export function quotaErrors(): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    onError: async (request) => {
      const response = quotaResponseFor(request.error);
      if (response) request.response = response;
      // Returning the response ends middy's onError chain, so httpErrors() does not overwrite it.
      return response;
    },
  };
}
