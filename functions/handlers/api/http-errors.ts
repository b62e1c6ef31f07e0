/**
 * middy error mapping for the API: every failure leaves as the Chronos error shape, with the
 * right status, and never leaks internals (5xx details go to the log only).
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import {
  ConflictError,
  IdempotencyKeyReusedError,
  NotFoundError,
  RunStateRefusal,
  ValidationError,
} from '#core/errors';
import { logger } from '../logger.ts';
import { type AjvError, problemsOf } from './ajv-problems.ts';
import { corsHeaders } from './cors.ts';
import { errorResponse } from './responses.ts';

interface MiddyHttpError extends Error {
  statusCode?: number;
  cause?: { package?: string; data?: unknown };
}

/** Maps one error to its HTTP response. */
export function responseForError(error: unknown): APIGatewayProxyResult {
  if (error instanceof ValidationError)
    return errorResponse(400, 'VALIDATION_FAILED', 'The request is invalid', error.details);
  if (error instanceof NotFoundError) return errorResponse(404, 'NOT_FOUND', error.message);
  if (error instanceof ConflictError) return errorResponse(409, 'CONFLICT', error.message);
  // An async run's callbacks and cancel: the refusal names its own status and code.
  if (error instanceof RunStateRefusal) return errorResponse(error.status, error.code, error.message);
  if (error instanceof IdempotencyKeyReusedError) {
    return errorResponse(422, 'IDEMPOTENCY_KEY_REUSED', error.message, [
      { field: 'Idempotency-Key', reason: 'was sent with another body; use a new key for a new request' },
    ]);
  }
  const httpError = error as MiddyHttpError;
  if (httpError?.cause?.package === '@middy/validator' && httpError.statusCode === 400) {
    return errorResponse(
      400,
      'VALIDATION_FAILED',
      'The request is invalid',
      problemsOf(httpError.cause.data as AjvError[]),
    );
  }
  if (httpError?.cause?.package === '@middy/http-json-body-parser') {
    return errorResponse(400, 'INVALID_JSON', 'The body is not valid JSON', [
      { field: 'body', reason: 'is not valid JSON' },
    ]);
  }
  logger.error('unhandled error', { error: error as Error });
  return errorResponse(500, 'INTERNAL', 'Internal error');
}

/** Every answer leaves through here, mapped or not: it also carries the CORS headers (cors.ts). */
export function httpErrors(): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  const cors = corsHeaders();
  return {
    after: cors.after,
    onError: async (request) => {
      request.response = responseForError(request.error);
      await cors.onError?.(request);
    },
  };
}
