/**
 * Which failed attempts are tried again, and when. Backoff is exponential with full jitter
 * (a uniformly random delay up to the exponential cap), which spreads the retries of many jobs
 * that failed together instead of hammering a recovering target in waves.
 */
import type { ErrorType } from './model.ts';

export interface RetryPolicy {
  /** Attempts in all, the first included (1 = never retry). */
  maxAttempts: number;
  initialDelaySeconds: number;
  maxDelaySeconds: number;
  multiplier: number;
  /** 4xx statuses that are worth retrying for this job (other 4xx are not). */
  retryOn?: number[];
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  initialDelaySeconds: 1,
  maxDelaySeconds: 300,
  multiplier: 2,
};
export const MAX_ATTEMPTS_LIMIT = 20;

/** What a finished attempt looked like, as far as retrying is concerned. */
export interface AttemptFailure {
  errorType?: ErrorType;
  httpStatus?: number;
  /** The target's Retry-After, in seconds, when it sent one. */
  retryAfterSeconds?: number;
}

/** True when the failure is transient: connection errors, timeouts, 5xx, 429, and the job's own retryOn statuses. */
export function isRetryable(failure: AttemptFailure, policy: RetryPolicy): boolean {
  switch (failure.errorType) {
    case 'timeout':
    case 'connection':
    case 'http_5xx':
      return true;
    case 'http_4xx':
      return (
        failure.httpStatus === 429 ||
        (failure.httpStatus !== undefined && (policy.retryOn ?? []).includes(failure.httpStatus))
      );
    default:
      return false;
  }
}

/** The exponential cap for the wait after attempt `attempt` (1-based), in ms. */
export function backoffCapMs(policy: RetryPolicy, attempt: number): number {
  const exponential = policy.initialDelaySeconds * policy.multiplier ** (attempt - 1);
  return Math.min(policy.maxDelaySeconds, exponential) * 1000;
}

/**
 * How long to wait before the attempt after `attempt`: full jitter within the backoff cap, except
 * that a 429/503 with Retry-After waits at least that long (capped at maxDelaySeconds).
 * `random` is in [0, 1).
 */
export function retryDelayMs(policy: RetryPolicy, attempt: number, failure: AttemptFailure, random: number): number {
  const jittered = Math.floor(random * backoffCapMs(policy, attempt));
  const honoursRetryAfter = failure.httpStatus === 429 || failure.httpStatus === 503;
  if (honoursRetryAfter && failure.retryAfterSeconds !== undefined) {
    return Math.max(jittered, Math.min(failure.retryAfterSeconds, policy.maxDelaySeconds) * 1000);
  }
  return jittered;
}

/** When the next attempt should start, or undefined when this failure ends the occurrence. */
export function nextAttemptAt(
  policy: RetryPolicy,
  attempt: number,
  failure: AttemptFailure,
  completedAt: number,
  random: number,
): number | undefined {
  if (attempt >= policy.maxAttempts || !isRetryable(failure, policy)) return undefined;
  return completedAt + retryDelayMs(policy, attempt, failure, random);
}

/** Parses an HTTP Retry-After value (seconds or an HTTP date) into whole seconds from `now`. */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}
