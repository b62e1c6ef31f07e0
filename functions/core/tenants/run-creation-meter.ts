/**
 * Metering of the runs a tenant creates outside its schedule: `POST /v1/jobs/{id}/trigger`, a
 * PATCHed schedule that is materialized at once, resume catch-up and dead-letter re-drive. The
 * scanner's own runs are paced by the schedules (and their minimum interval); these are not, so
 * each request takes tokens from the tenant's trigger bucket (`triggersPerSecond`,
 * `triggerBurst`) before it writes anything, and is refused whole (RateLimitedError → 429 with
 * Retry-After) when the bucket has not enough. One token per run created, at most the whole
 * bucket for one request: a catch-up larger than the burst waits for a full bucket and empties it.
 * A loop that triggers a job from its own call (through any relay) is thereby held to the rate.
 */
import type { RateLimiter } from './ports.ts';
import { RateLimitedError } from './quota-errors.ts';
import type { TenantQuotas } from './quotas.ts';

export interface RunCreationMeter {
  /** Takes one token per run about to be created; throws RateLimitedError when there are not enough. */
  take(runs: number): Promise<void>;
}

/**
 * The meter of `tenantId` at `now`. `quotasOf` is read only when something is to be metered, so a
 * request refused earlier (404, 409) costs no read of the tenant.
 */
export function runCreationMeter(
  limiter: RateLimiter,
  tenantId: string,
  quotasOf: () => Promise<TenantQuotas>,
  now: number,
): RunCreationMeter {
  return {
    async take(runs) {
      if (runs <= 0) return;
      const quotas = await quotasOf();
      const taken = await limiter.take(
        tenantId,
        { perSecond: quotas.triggersPerSecond, burst: quotas.triggerBurst },
        now,
        runs,
      );
      if (!taken.allowed) throw new RateLimitedError(taken.retryAfterSeconds, 'runs');
    },
  };
}
