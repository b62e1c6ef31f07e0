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

/** The keys the JSON body parser refuses (prototype poisoning): valid JSON, but never a field of Chronos. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor']);

/**
 * A body the JSON parser refused for a forbidden key (`__proto__`, or `constructor` holding a
 * `prototype`) is valid JSON: the 400 names where the key is (`flowControl.__proto__`), as for any
 * field that is not Chronos's, rather than calling the body malformed.
 */
function forbiddenKeyResponse(error: unknown, body: unknown): APIGatewayProxyResult | undefined {
  const httpError = error as MiddyHttpError;
  if (httpError?.cause?.package !== '@middy/http-json-body-parser' || httpError.statusCode !== 422) return undefined;
  if (typeof body !== 'string') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const field = forbiddenKeyPath(parsed, []);
  if (field === undefined) return undefined;
  return errorResponse(400, 'VALIDATION_FAILED', 'The request is invalid', [
    { field: field.join('.'), reason: 'is not a field Chronos accepts' },
  ]);
}

/** The path of the first forbidden key in `value`, depth first; found without recursion limits of its own (the body is bounded). */
function forbiddenKeyPath(value: unknown, path: string[]): string[] | undefined {
  const pending: Array<[unknown, string[]]> = [[value, path]];
  while (pending.length > 0) {
    const [node, at] = pending.pop() as [unknown, string[]];
    if (node === null || typeof node !== 'object') continue;
    for (const [key, child] of Object.entries(node)) {
      const here = [...at, key];
      if (
        FORBIDDEN_KEYS.has(key) &&
        (key === '__proto__' || (child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype')))
      )
        return here;
      pending.push([child, here]);
    }
  }
  return undefined;
}

/** Every answer leaves through here, mapped or not: it also carries the CORS headers (cors.ts). */
export function httpErrors(): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  const cors = corsHeaders();
  return {
    after: cors.after,
    onError: async (request) => {
      request.response = forbiddenKeyResponse(request.error, request.event?.body) ?? responseForError(request.error);
      await cors.onError?.(request);
    },
  };
}
