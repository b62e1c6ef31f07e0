/**
 * What one finished run adds to its tenant's minute bucket: a count by status, whether it will be
 * retried, missed its SLA or was an async run's missed heartbeat, and its start lag and HTTP duration as histogram buckets.
 */
import type { Run } from '../model.ts';
import type { TerminalRunStatus } from '../run-state.ts';
import { runTiming, type TimedRun } from '../run-timing.ts';
import { bucketOf } from './lag-histogram.ts';

export const MINUTE_MS = 60_000;

export interface RunSample {
  tenantId: string;
  status: TerminalRunStatus;
  /** Start of the minute the run finished in (epoch ms). */
  minute: number;
  /** The failed attempt will be retried (it is still counted under its own status). */
  retried: boolean;
  slaMissed: boolean;
  /** An async run whose worker stopped heartbeating (errorType heartbeat_timeout; counted under TIMED_OUT too). */
  heartbeatTimeout: boolean;
  /** Histogram bucket indexes; absent when the run never started a call. */
  startLagBucket?: number;
  durationBucket?: number;
}

/** The start of the minute holding `ms`. */
export function minuteOf(ms: number): number {
  return Math.floor(ms / MINUTE_MS) * MINUTE_MS;
}

/** The sample of a run that has just reached a terminal state at `now` (its completedAt when known). */
export function sampleOf(
  run: TimedRun & Pick<Run, 'tenantId' | 'completedAt' | 'nextAttemptAt' | 'errorType'> & { status: TerminalRunStatus },
  now: number,
): RunSample {
  const timing = runTiming(run);
  return {
    tenantId: run.tenantId,
    status: run.status,
    minute: minuteOf(run.completedAt ?? now),
    retried: run.nextAttemptAt !== undefined,
    slaMissed: timing.slaMet === false,
    heartbeatTimeout: run.errorType === 'heartbeat_timeout',
    ...(timing.startLagMs === null ? {} : { startLagBucket: bucketOf(timing.startLagMs) }),
    ...(timing.durationMs === null || run.startedAt === undefined
      ? {}
      : { durationBucket: bucketOf(timing.durationMs) }),
  };
}
