/**
 * Whether an async attempt's end is retried, and when: the writer of the end (callback, scanner)
 * stores `nextAttemptAt` with it, as the executor does for a synchronous call. Timeouts (a missed
 * heartbeat, the max duration) are transient and retried; a worker's failure as it said
 * (`retryable`, true unless it said false); a cancel never. at-most-once jobs never retry (the
 * occurrence's one call was made). The backoff is the job's retry policy (retry-policy.ts).
 */
import type { Delivery } from '../model.ts';
import { nextAttemptAt, type RetryPolicy } from '../retry-policy.ts';
import type { AsyncEnd } from './async-run.ts';

/** True when the end may be retried by the job's retry policy (attempts left aside). */
export function isAsyncEndRetryable(end: AsyncEnd): boolean {
  switch (end.status) {
    case 'TIMED_OUT':
      return true;
    case 'FAILED':
      return end.retryable;
    default:
      return false;
  }
}

/** When attempt `attempt + 1` starts after `end` at `completedAt`, or undefined when the occurrence ends. */
export function asyncNextAttemptAt(
  end: AsyncEnd,
  job: { retry: RetryPolicy; delivery: Delivery },
  attempt: number,
  completedAt: number,
  random: number,
): number | undefined {
  if (job.delivery === 'at-most-once' || !isAsyncEndRetryable(end)) return undefined;
  // Retryable by now; a transient error type lets the policy decide on attempts and backoff alone.
  return nextAttemptAt(job.retry, attempt, { errorType: 'timeout' }, completedAt, random);
}
