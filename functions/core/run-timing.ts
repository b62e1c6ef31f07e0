/**
 * Where the time of a run went, from its stored timestamps, so a user can tell whether a late
 * run was Chronos' fault (start lag) or the target's (duration).
 *
 *   due ──dispatch lag──▶ received by an executor ──▶ claimed ──▶ started ──duration──▶ completed
 *   └───────────────────────── start lag ───────────────────────┘
 *
 * `due` is when the attempt should start: its occurrence, or for a retry its backoff
 * (`availableAt`), whichever is later. Lags may be negative: SQS releases a message up to a second
 * before its due time (whole-second delays) and the executor waits out the rest.
 */
import type { Run } from './model.ts';

/** The start-lag target a job has unless it sets `slaSeconds`. */
export const DEFAULT_SLA_SECONDS = 5;

export interface RunTiming {
  dueAt: number;
  /** First receive by an executor (SQS ApproximateFirstReceiveTimestamp) − due; null until received. */
  dispatchLagMs: number | null;
  /** HTTP request sent − due; null until the call started. */
  startLagMs: number | null;
  /** Of the HTTP call; null until it ended. */
  durationMs: number | null;
  slaSeconds: number;
  /** startLagMs ≤ slaSeconds; false for a run dead-lettered before it started; null otherwise (not started). */
  slaMet: boolean | null;
}

/** When the attempt should start. */
export function dueAtOf(run: Pick<Run, 'scheduledFor' | 'availableAt'>): number {
  return Math.max(run.scheduledFor, run.availableAt ?? 0);
}

/** The fields timings derive from. */
export type TimedRun = Pick<
  Run,
  'scheduledFor' | 'availableAt' | 'startedAt' | 'receivedAt' | 'durationMs' | 'status' | 'slaSeconds'
>;

/** The derived timings of a run; `slaSeconds` is the job's (the run's own copy wins when recorded). */
export function runTiming(run: TimedRun, slaSeconds: number = DEFAULT_SLA_SECONDS): RunTiming {
  const dueAt = dueAtOf(run);
  const sla = run.slaSeconds ?? slaSeconds;
  const startLagMs = run.startedAt === undefined ? null : run.startedAt - dueAt;
  let slaMet: boolean | null = null;
  if (startLagMs !== null) slaMet = startLagMs <= sla * 1000;
  else if (run.status === 'DEAD_LETTERED') slaMet = false;
  return {
    dueAt,
    dispatchLagMs: run.receivedAt === undefined ? null : run.receivedAt - dueAt,
    startLagMs,
    durationMs: run.durationMs ?? null,
    slaSeconds: sla,
    slaMet,
  };
}
