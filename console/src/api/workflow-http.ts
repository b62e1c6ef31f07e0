/**
 * The workflow routes through the session's client (its token, its retries): `client.http`, the
 * openapi-fetch client underneath. Until the generated document has the workflow paths, it is
 * called untyped here and its answers typed by workflow-types.ts; then `untyped(client)` becomes
 * `client.http` and the casts go.
 */
import { type ApiError, type ChronosClient, ChronosError } from '@chronos/client';

type Method = 'GET' | 'POST' | 'DELETE';
interface Init {
  params?: { path?: Record<string, string>; query?: Record<string, string | number | undefined> };
}
type Answer = { data?: unknown; error?: unknown; response: Response };
type UntypedHttp = Record<Method, (path: string, init?: Init) => Promise<Answer>>;

function untyped(client: ChronosClient): UntypedHttp {
  return client.http as unknown as UntypedHttp;
}

/** The ApiError of a refusal, as the client builds it (client/src/errors.ts apiErrorOf). */
function apiErrorOf(response: Response, body: unknown): ApiError {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
  if (typeof error?.code !== 'string' || typeof error.message !== 'string') {
    return { status: response.status, code: 'UNEXPECTED_ANSWER', message: `HTTP ${response.status}`, details: [] };
  }
  const details = (Array.isArray(error.details) ? error.details : []) as ApiError['details'];
  const field = details[0]?.field;
  return { status: response.status, code: error.code, message: error.message, details, ...(field ? { field } : {}) };
}

/** The answer's body as `T`, or a thrown ChronosError (status 0 when no answer came). */
export async function workflowCall<T>(client: ChronosClient, method: Method, path: string, init?: Init): Promise<T> {
  let answer: Answer;
  try {
    answer = await untyped(client)[method](path, init);
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    throw new ChronosError({ status: 0, code: 'NETWORK', message, details: [] });
  }
  if (!answer.response.ok) throw new ChronosError(apiErrorOf(answer.response, answer.error));
  return answer.data as T;
}
