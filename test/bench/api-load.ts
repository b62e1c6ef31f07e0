/**
 * Creates jobs through the HTTP API with bounded parallelism, timing each request. Each create
 * carries its own `Idempotency-Key` and is sent again (same key, same body) after a 5xx or a
 * dropped connection, as a careful client does: a create that timed out after writing its job is
 * answered with that job (`Idempotent-Replayed`), never made twice, so every call the target gets
 * belongs to a job the bench knows. A 429 is waited out (its Retry-After, at most 5 s) and sent
 * again, as the typed client does; any other 4xx is final: nothing was written.
 */
import { randomUUID } from 'node:crypto';

/** Tries of one create: the first and two more after a 5xx, a 429 or a dropped connection. */
const MAX_TRIES = 3;
/** The longest Retry-After of a 429 the bench waits out. */
const MAX_RETRY_AFTER_MS = 5_000;

export interface CreatedJobs {
  jobIds: string[];
  /**
   * Per created job, in `jobIds` order: when its create was sent and when its answer was read
   * (epoch ms). A run-now job's occurrence is the instant the API created it, within this window.
   */
  windows: Array<{ from: number; to: number }>;
  /** Per created job, in `jobIds` order: the target URL of its create body. */
  targetUrls: string[];
  /** Request latency of each create, ms (client side, over keep-alive HTTP). */
  latenciesMs: number[];
  failures: number;
  /** Status and body of the first failed create, to say why. */
  firstFailure?: string;
  durationMs: number;
}

/** POSTs `bodyOf(i)` for i < count with at most `parallelism` requests in flight. */
export async function createJobs(
  api: { apiUrl: string; token: string },
  count: number,
  parallelism: number,
  bodyOf: (index: number) => unknown,
  onProgress: (done: number) => void = () => undefined,
): Promise<CreatedJobs> {
  const jobIds: string[] = new Array(count);
  const windows: Array<{ from: number; to: number }> = new Array(count);
  const targetUrls: string[] = new Array(count);
  const latenciesMs: number[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  let next = 0;
  const keyPrefix = `bench-${randomUUID()}`;
  const startedAt = performance.now();
  const worker = async () => {
    while (next < count) {
      const index = next++;
      const sentAt = performance.now();
      const from = Date.now();
      const body = bodyOf(index);
      const { status, answer } = await createOnce(api, body, `${keyPrefix}-${index}`);
      latenciesMs.push(performance.now() - sentAt);
      if (status !== 201 || !answer.jobId) {
        failures++;
        firstFailure ??= `${status} ${JSON.stringify(answer).slice(0, 300)}`;
        continue;
      }
      jobIds[index] = answer.jobId;
      windows[index] = { from, to: Date.now() };
      targetUrls[index] = String((body as { target?: { url?: unknown } }).target?.url);
      if (latenciesMs.length % 500 === 0) onProgress(latenciesMs.length);
    }
  };
  await Promise.all(Array.from({ length: parallelism }, worker));
  return {
    jobIds: jobIds.filter(Boolean),
    windows: windows.filter(Boolean),
    targetUrls: targetUrls.filter(Boolean),
    latenciesMs,
    failures,
    ...(firstFailure ? { firstFailure } : {}),
    durationMs: performance.now() - startedAt,
  };
}

/** One create, tried again with the same key after a 5xx, a 429 or a dropped connection. */
async function createOnce(
  api: { apiUrl: string; token: string },
  body: unknown,
  idempotencyKey: string,
): Promise<{ status: number | string; answer: { jobId?: string } }> {
  let last: { status: number | string; answer: { jobId?: string } } = { status: 'not sent', answer: {} };
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    try {
      const response = await fetch(`${api.apiUrl}/v1/jobs`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${api.token}`,
          'idempotency-key': idempotencyKey,
        },
        body: JSON.stringify(body),
      });
      last = { status: response.status, answer: (await response.json()) as { jobId?: string } };
      if (response.status === 429) {
        const seconds = Number(response.headers.get('retry-after') ?? '1');
        await new Promise((resolve) => setTimeout(resolve, Math.min(MAX_RETRY_AFTER_MS, (seconds || 1) * 1000)));
        continue;
      }
      if (response.status < 500) return last;
    } catch (error) {
      last = { status: String((error as { cause?: { code?: string } }).cause?.code ?? error), answer: {} };
    }
  }
  return last;
}
