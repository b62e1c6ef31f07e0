/**
 * A token bucket as GCRA (the generic cell rate algorithm): instead of a token count the bucket
 * keeps one instant, the theoretical arrival time `tat`. A request at `now` for `n` tokens is
 * allowed when `tat + (n − 1)·interval <= now + tolerance` and moves `tat` to
 * `max(tat, now) + n·interval`. With `interval = 1/perSecond` and
 * `tolerance = (burst − 1)·interval` that is exactly a bucket of `burst` tokens refilled at
 * `perSecond` — and, unlike a count with a refill time, each step is a single atomic update
 * DynamoDB can condition, so concurrent requests never lose an update.
 */
export interface BucketLimits {
  perSecond: number;
  burst: number;
}

/** Milliseconds between two tokens, and how far ahead of now `tat` may run (the burst). */
export function gcraParameters(limits: BucketLimits): { intervalMs: number; toleranceMs: number } {
  const intervalMs = 1000 / limits.perSecond;
  return { intervalMs, toleranceMs: (limits.burst - 1) * intervalMs };
}

/**
 * Tokens a request for `count` takes: at least one, at most the whole bucket. A request for more
 * than the burst could never be allowed; it takes a full bucket instead (and so waits for one).
 */
export function tokensFor(count: number, limits: BucketLimits): number {
  return Math.min(Math.max(1, Math.ceil(count)), Math.max(1, limits.burst));
}

export type GcraDecision = { allowed: true; tat: number } | { allowed: false; retryAfterSeconds: number };

/** Decides one request for `count` tokens (default 1) at `now` for a bucket at `tat` (undefined: never used, i.e. full). */
export function gcraDecide(tat: number | undefined, limits: BucketLimits, now: number, count = 1): GcraDecision {
  const { intervalMs, toleranceMs } = gcraParameters(limits);
  const tokens = tokensFor(count, limits);
  const current = tat ?? now;
  const lastArrival = Math.max(current, now) + (tokens - 1) * intervalMs;
  if (lastArrival <= now + toleranceMs) return { allowed: true, tat: lastArrival + intervalMs };
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((lastArrival - toleranceMs - now) / 1000)) };
}
