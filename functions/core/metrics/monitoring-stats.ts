/**
 * GET /v1/monitoring/stats: a window of minute buckets merged into counts, rates and latency
 * percentiles, and the runs due but not yet started. Two reads whatever the traffic: the window's
 * buckets (one Query) and the job counters.
 */
import type { JobStatus } from '../model.ts';
import { TERMINAL_RUN_STATUSES, type TerminalRunStatus } from '../run-state.ts';
import { type Histogram, mergeHistograms, percentileBound, upperBoundOf } from './lag-histogram.ts';
import type { MinuteBucket } from './minute-bucket.ts';
import type { JobStatusCounts, RunAggregates } from './ports.ts';
import { MINUTE_MS, minuteOf } from './run-sample.ts';

export const STATS_WINDOWS = { '5m': 5, '1h': 60, '24h': 1440 } as const;
export type StatsWindow = keyof typeof STATS_WINDOWS;

/** Runs that ran (or should have): the denominator of the success and error rates. */
const OUTCOMES: readonly TerminalRunStatus[] = ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'DEAD_LETTERED'];
const ERRORS: readonly TerminalRunStatus[] = ['FAILED', 'TIMED_OUT', 'DEAD_LETTERED'];

/** Percentiles as bucket upper bounds (ms): the exact value is at most this, and above the previous bound. */
export interface LatencySummary {
  count: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
  /** Runs above the last bound (300 s): their percentile shows as null. */
  overflow: number;
  histogram: Array<{ leMs: number | null; count: number }>;
}

export interface MonitoringStats {
  scope: string;
  window: StatsWindow;
  from: string;
  to: string;
  jobs: { byStatus: Partial<Record<JobStatus, number>> };
  runs: {
    byStatus: Record<TerminalRunStatus, number>;
    total: number;
    retried: number;
    slaMissed: number;
    /** Async runs that ended TIMED_OUT because their worker stopped heartbeating (also in byStatus.TIMED_OUT). */
    heartbeatTimeouts: number;
    successRate: number | null;
    errorRate: number | null;
    deadLetters: number;
    /**
     * Runs still QUEUED that are due by the end of the current minute (and not before the window):
     * the queued counters of the window's buckets, `in − out`. Minute-granular.
     */
    dueNotStarted: number;
  };
  startLagMs: LatencySummary;
  durationMs: LatencySummary;
}

/** The first and last minute of a window ending at `now` (the current, partial minute included). */
export function windowMinutes(window: StatsWindow, now: number): { fromMinute: number; toMinute: number } {
  const toMinute = minuteOf(now);
  return { fromMinute: toMinute - (STATS_WINDOWS[window] - 1) * MINUTE_MS, toMinute };
}

function summarize(histogram: Histogram): LatencySummary {
  return {
    count: histogram.reduce((sum, c) => sum + c, 0),
    p50: percentileBound(histogram, 50),
    p95: percentileBound(histogram, 95),
    p99: percentileBound(histogram, 99),
    overflow: histogram[histogram.length - 1] ?? 0,
    histogram: histogram.map((count, i) => ({ leMs: upperBoundOf(i), count })),
  };
}

const ratio = (part: number, whole: number) => (whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000);

/** Merges buckets and job counts into the stats document. */
export function statsOf(
  scope: string,
  window: StatsWindow,
  range: { fromMinute: number; toMinute: number },
  buckets: MinuteBucket[],
  jobs: Partial<Record<JobStatus, number>>,
): MonitoringStats {
  const byStatus = Object.fromEntries(TERMINAL_RUN_STATUSES.map((s) => [s, 0])) as Record<TerminalRunStatus, number>;
  let retried = 0;
  let slaMissed = 0;
  let heartbeatTimeouts = 0;
  let dueNotStarted = 0;
  for (const bucket of buckets) {
    for (const status of TERMINAL_RUN_STATUSES) byStatus[status] += bucket.counts[status] ?? 0;
    retried += bucket.retried;
    slaMissed += bucket.slaMissed;
    heartbeatTimeouts += bucket.heartbeatTimeouts;
    // Buckets after the window's last minute hold runs not due yet; the read never returns them.
    if (bucket.minute <= range.toMinute) dueNotStarted += bucket.queuedIn - bucket.queuedOut;
  }
  const outcomes = OUTCOMES.reduce((sum, s) => sum + byStatus[s], 0);
  const errors = ERRORS.reduce((sum, s) => sum + byStatus[s], 0);
  return {
    scope,
    window,
    from: new Date(range.fromMinute).toISOString(),
    to: new Date(range.toMinute + MINUTE_MS).toISOString(),
    jobs: { byStatus: jobs },
    runs: {
      byStatus,
      total: TERMINAL_RUN_STATUSES.reduce((sum, s) => sum + byStatus[s], 0),
      retried,
      slaMissed,
      heartbeatTimeouts,
      successRate: ratio(byStatus.SUCCEEDED, outcomes),
      errorRate: ratio(errors, outcomes),
      deadLetters: byStatus.DEAD_LETTERED,
      dueNotStarted,
    },
    startLagMs: summarize(mergeHistograms(buckets.map((b) => b.startLag))),
    durationMs: summarize(mergeHistograms(buckets.map((b) => b.duration))),
  };
}

/** Reads and merges the stats of `scope` for the window ending at `now`. */
export async function monitoringStats(
  deps: { aggregates: RunAggregates; jobCounts: JobStatusCounts },
  scope: string,
  window: StatsWindow,
  now: number,
): Promise<MonitoringStats> {
  const range = windowMinutes(window, now);
  const [buckets, jobs] = await Promise.all([
    deps.aggregates.read(scope, range.fromMinute, range.toMinute),
    deps.jobCounts.read(scope),
  ]);
  return statsOf(scope, window, range, buckets, jobs);
}
