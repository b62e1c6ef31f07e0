/**
 * A token bucket as GCRA (the generic cell rate algorithm): instead of a token count the bucket
 * keeps one instant, the theoretical arrival time `tat`. A request at `now` is allowed when
 * `tat <= now + tolerance` and moves `tat` to `max(tat, now) + interval`. With
 * `interval = 1/perSecond` and `tolerance = (burst − 1)·interval` that is exactly a bucket of
 * `burst` tokens refilled at `perSecond` — and, unlike a count with a refill time, each step is a
 * single atomic update DynamoDB can condition, so concurrent requests never lose an update.
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

export type GcraDecision = { allowed: true; tat: number } | { allowed: false; retryAfterSeconds: number };

/** Decides one request at `now` for a bucket at `tat` (undefined: never used, i.e. full). */
export function gcraDecide(tat: number | undefined, limits: BucketLimits, now: number): GcraDecision {
  const { intervalMs, toleranceMs } = gcraParameters(limits);
  const current = tat ?? now;
  if (current <= now + toleranceMs) return { allowed: true, tat: Math.max(current, now) + intervalMs };
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((current - toleranceMs - now) / 1000)) };
}
