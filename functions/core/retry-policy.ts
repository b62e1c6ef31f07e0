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
 * The longest Retry-After worth keeping: no retry policy waits longer (maxDelaySeconds is at most a
 * day), and a bounded number is one every later stage can store and add to a time.
 */
export const MAX_RETRY_AFTER_SECONDS = 86_400;

/**
 * How long to wait before the attempt after `attempt`: full jitter within the backoff cap, except
 * that a 429/503 with Retry-After waits at least that long (capped at maxDelaySeconds).
 * `random` is in [0, 1). Always a whole number of ms between 0 and maxDelaySeconds, whatever the
 * failure carried: a hostile Retry-After or a random outside [0, 1) cannot push it past that.
 */
export function retryDelayMs(policy: RetryPolicy, attempt: number, failure: AttemptFailure, random: number): number {
  const capMs = policy.maxDelaySeconds * 1000;
  const jittered = Math.floor(clamp(random, 0, 1) * backoffCapMs(policy, attempt));
  const honoursRetryAfter = failure.httpStatus === 429 || failure.httpStatus === 503;
  const retryAfter = failure.retryAfterSeconds;
  const delay =
    honoursRetryAfter && retryAfter !== undefined && Number.isFinite(retryAfter)
      ? Math.max(jittered, Math.min(retryAfter, policy.maxDelaySeconds) * 1000)
      : jittered;
  return Math.round(clamp(delay, 0, capMs));
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

/** What a Retry-After header said, bounded; `note` says what was clamped or ignored, for the run's record. */
export interface RetryAfter {
  seconds?: number;
  note?: string;
}

/** Longest Retry-After value quoted in a note: the header itself may be any length. */
const QUOTED_CHARS = 40;

/**
 * Reads an HTTP Retry-After value (delay-seconds or an HTTP date) as whole seconds from `now`,
 * within [0, MAX_RETRY_AFTER_SECONDS]. Anything else (negative, fractional, garbage, a date
 * outside what JS can represent) is ignored; a value beyond the bound is clamped. Never throws.
 */
export function readRetryAfter(value: string | null | undefined, now: number): RetryAfter {
  if (!value) return {};
  const trimmed = value.trim();
  const quoted = trimmed.length > QUOTED_CHARS ? `${trimmed.slice(0, QUOTED_CHARS)}…` : trimmed;
  let seconds: number;
  if (/^\d+$/.test(trimmed)) seconds = Number(trimmed);
  else {
    // Every HTTP date format names its month and weekday: without letters it is no date, however
    // leniently Date.parse would read it ("-5" parses as a year).
    const date = /[a-z]{3}/i.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
    if (!Number.isFinite(date) || !Number.isFinite(now))
      return { note: `Retry-After "${quoted}" ignored: not a delay or an HTTP date` };
    seconds = Math.max(0, Math.ceil((date - now) / 1000));
  }
  if (seconds <= MAX_RETRY_AFTER_SECONDS) return { seconds };
  return { seconds: MAX_RETRY_AFTER_SECONDS, note: `Retry-After "${quoted}" clamped to ${MAX_RETRY_AFTER_SECONDS} s` };
}

/** Parses an HTTP Retry-After value (seconds or an HTTP date) into whole seconds from `now` (bounded, see readRetryAfter). */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  return readRetryAfter(value, now).seconds;
}

function clamp(value: number, min: number, max: number): number {
  if (Number.isNaN(value)) return min;
  return Math.min(max, Math.max(min, value));
}
