/**
 * Where the time of a run went, from its stored timestamps, so a user can tell whether a late
 * run was Chronos' fault (start lag) or the target's (duration).
 *
 *   due ──dispatch lag──▶ received by an executor ──▶ claimed ──▶ started ──duration──▶ completed
 *   └───────────────────────── start lag ───────────────────────┘
 *
 * `due` is when the attempt could first start: its occurrence, for a retry its backoff
 * (`availableAt`), and never before the run existed (`createdAt`), whichever is latest. A job
 * created with an `at` an hour in the past could not start an hour ago: measured from its
 * occurrence, its run would add an hour of "Chronos lag" to the fleet's percentiles and alarms, so
 * one tenant could move everyone's. Runs the scanner materializes are created ahead of their
 * occurrence (its horizon), so for them `createdAt` changes nothing. A run Chronos itself creates
 * late (a scanner behind, a completion handler slower than a retry's backoff) does not count that
 * delay as start lag: the scanner heartbeat and the stream iterator-age alarms watch those.
 * Lags may be negative: SQS releases a message up to a second before its due time (whole-second
 * delays) and the executor waits out the rest.
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

/** When the attempt should start by its schedule (the queued-runs minute of the monitoring aggregates). */
export function dueAtOf(run: Pick<Run, 'scheduledFor' | 'availableAt'>): number {
  return Math.max(run.scheduledFor, run.availableAt ?? 0);
}

/** When the attempt could first start: its due time, but never before the run was created. Lags count from here. */
export function startableAtOf(run: Pick<Run, 'scheduledFor' | 'availableAt'> & { createdAt?: number }): number {
  return Math.max(dueAtOf(run), run.createdAt ?? 0);
}

/** The fields timings derive from. */
export type TimedRun = Pick<
  Run,
  'scheduledFor' | 'availableAt' | 'startedAt' | 'receivedAt' | 'durationMs' | 'status' | 'slaSeconds'
> &
  Partial<Pick<Run, 'createdAt'>>;

/** The derived timings of a run; `slaSeconds` is the job's (the run's own copy wins when recorded). */
export function runTiming(run: TimedRun, slaSeconds: number = DEFAULT_SLA_SECONDS): RunTiming {
  const dueAt = startableAtOf(run);
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
