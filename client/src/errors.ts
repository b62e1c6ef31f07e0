/**
 * Errors as values: every failed call answers `{ error }` with the API's error shape (code,
 * message, details naming the field), its status, and the first field named — or, when no answer
 * came (network, abort), status 0 and code NETWORK. Throwing is left to the caller (`unwrap`) and
 * to the pagination iterators, which cannot return a value mid-loop.
 */
import type { components } from './schema.ts';

export type ErrorBody = components['schemas']['Error'];
export type ErrorDetail = ErrorBody['error']['details'][number];

export interface ApiError {
  /** The HTTP status; 0 when no answer came. */
  status: number;
  /** `VALIDATION_FAILED`, `NOT_FOUND`, `CONFLICT`, `RATE_LIMITED`, … or `NETWORK` / `UNEXPECTED_ANSWER`. */
  code: string;
  message: string;
  details: ErrorDetail[];
  /** The first field the API named (a body field in dotted form, a query parameter, a header). */
  field?: string;
  /** From `Retry-After`, when the answer had one. */
  retryAfterSeconds?: number;
}

/** What every method answers: the data, or the error, never both. */
export type ChronosResult<T> =
  | { data: T; error?: undefined; response: Response }
  | { data?: undefined; error: ApiError; response?: Response };

/** An ApiError as an exception (unwrap, pagination). */
export class ChronosError extends Error {
  override readonly name = 'ChronosError';
  constructor(readonly error: ApiError) {
    super(`${error.code}: ${error.message}${error.field ? ` (${error.field})` : ''}`);
  }
}

/** The data of a result, or a thrown ChronosError. */
export function unwrap<T>(result: ChronosResult<T>): T {
  if (result.error) throw new ChronosError(result.error);
  return result.data;
}

function isErrorBody(body: unknown): body is ErrorBody {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string';
}

/** The ApiError of a non-2xx answer, whatever its body (a proxy's HTML page is still an error). */
export function apiErrorOf(response: Response, body: unknown): ApiError {
  const retryAfter = Number(response.headers.get('retry-after'));
  const base = {
    status: response.status,
    ...(Number.isFinite(retryAfter) && response.headers.has('retry-after') ? { retryAfterSeconds: retryAfter } : {}),
  };
  if (!isErrorBody(body)) {
    return {
      ...base,
      code: 'UNEXPECTED_ANSWER',
      message: `HTTP ${response.status} ${response.statusText}`.trim(),
      details: [],
    };
  }
  const details = Array.isArray(body.error.details) ? body.error.details : [];
  const field = details[0]?.field;
  return { ...base, code: body.error.code, message: body.error.message, details, ...(field ? { field } : {}) };
}

/** The ApiError of a call that got no answer. */
export function networkError(cause: unknown): ApiError {
  const message = cause instanceof Error ? cause.message : String(cause);
  return { status: 0, code: 'NETWORK', message, details: [] };
}
