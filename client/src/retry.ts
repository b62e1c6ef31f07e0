/**
 * Retries of refused calls, bounded: a 429 with `Retry-After` (the API's rate limits: nothing was
 * done, so any method may be sent again) and a 503 (the service could not take it; only a request
 * that is safe to repeat: not a POST without an Idempotency-Key). Waits what `Retry-After` says
 * (seconds or an HTTP date), else backs off exponentially; never longer than `maxDelayMs` per wait
 * — a longer Retry-After is answered to the caller at once — and at most `maxRetries` times.
 */

export interface RetryPolicy {
  /** Retries after the first attempt (default 3; 0 turns retries off). */
  maxRetries?: number;
  /** Longest single wait (default 30 000 ms). */
  maxDelayMs?: number;
  /** First backoff without Retry-After (default 500 ms), doubled each retry. */
  baseDelayMs?: number;
}

const DEFAULTS = { maxRetries: 3, maxDelayMs: 30_000, baseDelayMs: 500 };

/** How long to wait before retry number `retry` (0-based), or undefined to give up now. */
export function retryDelayMs(response: Response, retry: number, policy: RetryPolicy = {}): number | undefined {
  const { maxDelayMs, baseDelayMs } = { ...DEFAULTS, ...policy };
  const header = response.headers.get('retry-after');
  if (header === null) {
    // A 429 without Retry-After is a quota (QUOTA_EXCEEDED) or an edge limit: waiting does not help.
    if (response.status === 429) return undefined;
    return Math.min(maxDelayMs, baseDelayMs * 2 ** retry);
  }
  const seconds = /^\d+$/.test(header.trim()) ? Number(header) * 1000 : Date.parse(header) - Date.now();
  if (!Number.isFinite(seconds)) return undefined;
  const delay = Math.max(0, seconds);
  return delay > maxDelayMs ? undefined : delay;
}

function repeatable(request: Request): boolean {
  return request.method !== 'POST' || request.headers.has('idempotency-key');
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A fetch that retries as described above; `inner` does the calls. */
export function retryingFetch(
  inner: (request: Request) => Promise<Response>,
  policy: RetryPolicy = {},
): (request: Request) => Promise<Response> {
  const maxRetries = policy.maxRetries ?? DEFAULTS.maxRetries;
  return async (request) => {
    for (let retry = 0; ; retry++) {
      // A Request's body can be read once: each attempt but the last sends a copy.
      const last = retry >= maxRetries;
      const response = await inner(last ? request : request.clone());
      const retryable = response.status === 429 || (response.status === 503 && repeatable(request));
      if (last || !retryable) return response;
      const delay = retryDelayMs(response, retry, policy);
      if (delay === undefined) return response;
      await response.body?.cancel();
      await sleep(delay, request.signal);
    }
  };
}
