/**
 * Calls a job's target with fetch (undici), bounded by the job's timeout through an AbortSignal
 * that covers the whole exchange, headers and the body excerpt alike.
 */
import type { ErrorType } from '#core/model';
import type { HttpInvoker, HttpRequest, HttpResult } from '#core/ports';
import { parseRetryAfter } from '#core/retry-policy';
import { readExcerpt } from './read-excerpt.ts';

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Classifies a fetch failure: our own timeout, or the network. */
export function classifyFetchError(error: unknown): { errorType: ErrorType; message: string } {
  const err = error as Error & { cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') {
    return { errorType: 'timeout', message: 'target did not answer within the timeout' };
  }
  const code = err?.cause?.code;
  if (code && CONNECTION_CODES.has(code))
    return { errorType: 'connection', message: `${code}: ${err.cause?.message ?? ''}`.trim() };
  return { errorType: 'connection', message: err?.cause?.message ?? err?.message ?? String(error) };
}

export class FetchHttpInvoker implements HttpInvoker {
  constructor(private readonly excerptBytes: number) {}

  async invoke(request: HttpRequest): Promise<HttpResult> {
    const startedAt = Date.now();
    const signal = AbortSignal.timeout(request.timeoutMs);
    try {
      const response = await fetch(request.url, {
        method: request.method,
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        signal,
        redirect: 'follow',
      });
      const bodyExcerpt = await readExcerpt(response, this.excerptBytes);
      const retryAfterSeconds = parseRetryAfter(response.headers.get('retry-after'), Date.now());
      return {
        kind: 'response',
        status: response.status,
        bodyExcerpt,
        durationMs: Date.now() - startedAt,
        startedAt,
        ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
      };
    } catch (error) {
      return { kind: 'error', ...classifyFetchError(error), durationMs: Date.now() - startedAt, startedAt };
    }
  }
}
