/** Async runs in the states the decision tests start from. */
import type { AsyncRunState, DecisionContext } from '#core/async/async-run';
import type { CallbackClaims } from '#core/async/callback-token';

export const T0 = Date.parse('2026-11-24T22:00:00Z');
export const SECOND = 1000;
export const SHARDS = 4;
export const EXECUTOR = 'executor-1';

export const at = (ms: number): DecisionContext => ({ now: ms, shardCount: SHARDS });

/** Claimed by EXECUTOR at T0, the call under way, no 202 recorded yet. */
export function claimedRun(overrides: Partial<AsyncRunState> = {}): AsyncRunState {
  return {
    tenantId: 'acme',
    jobId: '01JD6S3Q6Z8X4T2M9R5V7W1Y0A',
    scheduledFor: T0,
    attempt: 1,
    status: 'RUNNING',
    revision: 0,
    settings: { heartbeatTimeoutSeconds: 60, maxDurationSeconds: 3600, cancelGraceSeconds: 30 },
    leaseOwner: EXECUTOR,
    claimedAt: T0,
    ...overrides,
  };
}

/** Accepted at T0 + 1 s: heartbeat deadline 61 s, max duration 3,600 s after T0. */
export function acceptedRun(overrides: Partial<AsyncRunState> = {}): AsyncRunState {
  return claimedRun({
    revision: 1,
    acceptedAt: T0 + SECOND,
    heartbeatDeadline: T0 + 61 * SECOND,
    maxDurationDeadline: T0 + 3600 * SECOND,
    ...overrides,
  });
}

export const claimsOf = (run: AsyncRunState): CallbackClaims => ({
  tenantId: run.tenantId,
  jobId: run.jobId,
  scheduledFor: run.scheduledFor,
  attempt: run.attempt,
});
