/**
 * Per-tenant quotas. The stage configures the defaults (cdk.json, passed to the functions as
 * QUOTA_* variables); a tenant item may override any of them for that tenant.
 */
export interface TenantQuotas {
  /** Jobs that can still fire (ACTIVE or PAUSED) at once. */
  maxActiveJobs: number;
  /** Token bucket of `POST /v1/jobs`: sustained creates per second... */
  createsPerSecond: number;
  /** ...and the burst the bucket holds. */
  createBurst: number;
  /**
   * Token bucket of the runs created outside the schedule (trigger, a PATCHed schedule due at
   * once, resume catch-up, dead-letter re-drive): sustained runs per second...
   */
  triggersPerSecond: number;
  /** ...and the burst the bucket holds. */
  triggerBurst: number;
  /** Recurring schedules may not fire more often than this. */
  minIntervalSeconds: number;
  /** Target body plus headers (plain and secret), in bytes. */
  maxPayloadBytes: number;
  /** Calls to this tenant's targets in flight at once, across all executors. */
  maxConcurrentRuns: number;
}

export const QUOTA_KEYS = [
  'maxActiveJobs',
  'createsPerSecond',
  'createBurst',
  'triggersPerSecond',
  'triggerBurst',
  'minIntervalSeconds',
  'maxPayloadBytes',
  'maxConcurrentRuns',
] as const satisfies readonly (keyof TenantQuotas)[];

/** Defaults when neither the stage nor the tenant says otherwise. */
export const DEFAULT_QUOTAS: TenantQuotas = {
  maxActiveJobs: 10_000,
  createsPerSecond: 10,
  createBurst: 50,
  triggersPerSecond: 5,
  triggerBurst: 20,
  minIntervalSeconds: 1,
  maxPayloadBytes: 64 * 1024,
  maxConcurrentRuns: 5,
};

/** The tenant's overrides on top of the stage defaults; non-positive or non-integer overrides are ignored. */
export function effectiveQuotas(defaults: TenantQuotas, overrides: Partial<TenantQuotas> = {}): TenantQuotas {
  const result = { ...defaults };
  for (const key of QUOTA_KEYS) {
    const value = overrides[key];
    if (typeof value === 'number' && Number.isInteger(value) && value > 0) result[key] = value;
  }
  return result;
}
