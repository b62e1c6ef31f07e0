/**
 * GET /v1/monitoring/timeseries: the window of GET /v1/monitoring/stats as a series of points, for
 * a chart. Built from the same minute buckets (one Query), so the points' counts add up to the
 * stats of the same window; a day is merged into 15-minute steps counted from the window's start (not clock quarter hours, so
 * the points add up to the stats of the same window), whose percentiles come from the
 * merged histograms of their minutes. Every step of the window has its point, zeros where nothing
 * finished, so a chart's time axis has no gaps.
 */
import { TERMINAL_RUN_STATUSES, type TerminalRunStatus } from '../run-state.ts';
import { type Histogram, mergeHistograms, percentileBound } from './lag-histogram.ts';
import type { MinuteBucket } from './minute-bucket.ts';
import { type StatsWindow, windowMinutes } from './monitoring-stats.ts';
import type { RunAggregates } from './ports.ts';
import { MINUTE_MS } from './run-sample.ts';

/** The windows a series covers and the length of its steps: 60 minutes of an hour, 96 fifteen-minute steps of a day. */
export const TIMESERIES_WINDOWS = {
  '1h': { stepMinutes: 1 },
  '24h': { stepMinutes: 15 },
} as const satisfies Partial<Record<StatsWindow, { stepMinutes: number }>>;
export type TimeseriesWindow = keyof typeof TIMESERIES_WINDOWS;

/** Each end status of a run, as a point names its count. */
export const POINT_COUNT_NAMES = {
  SUCCEEDED: 'succeeded',
  FAILED: 'failed',
  TIMED_OUT: 'timedOut',
  CANCELLED: 'cancelled',
  SKIPPED: 'skipped',
  DEAD_LETTERED: 'deadLettered',
} as const satisfies Record<TerminalRunStatus, string>;

type PointCounts = { [S in TerminalRunStatus as (typeof POINT_COUNT_NAMES)[S]]: number };

/** Bucket upper bounds in ms, as in the stats; null when no run of the step has the value (or above the last bound). */
export interface PercentilePair {
  p50: number | null;
  p95: number | null;
}

/** The runs that finished in one step, by end status, with their percentiles. */
export interface TimeseriesPoint extends PointCounts {
  /** Start of the step (ISO-8601, UTC). */
  at: string;
  /** Failed attempts that will be retried (also counted under their own status). */
  retried: number;
  slaMissed: number;
  durationMs: PercentilePair;
  startLagMs: PercentilePair;
}

export interface MonitoringTimeseries {
  scope: string;
  window: TimeseriesWindow;
  from: string;
  to: string;
  stepSeconds: number;
  /** Every step from `from` to `to`, oldest first. */
  points: TimeseriesPoint[];
}

function percentiles(histogram: Histogram): PercentilePair {
  return { p50: percentileBound(histogram, 50), p95: percentileBound(histogram, 95) };
}

/** One step's point: its minute buckets summed, their histograms merged. */
function pointOf(at: number, buckets: readonly MinuteBucket[]): TimeseriesPoint {
  const counts = Object.fromEntries(
    TERMINAL_RUN_STATUSES.map((status) => [
      POINT_COUNT_NAMES[status],
      buckets.reduce((sum, bucket) => sum + (bucket.counts[status] ?? 0), 0),
    ]),
  ) as PointCounts;
  return {
    at: new Date(at).toISOString(),
    ...counts,
    retried: buckets.reduce((sum, bucket) => sum + bucket.retried, 0),
    slaMissed: buckets.reduce((sum, bucket) => sum + bucket.slaMissed, 0),
    durationMs: percentiles(mergeHistograms(buckets.map((bucket) => bucket.duration))),
    startLagMs: percentiles(mergeHistograms(buckets.map((bucket) => bucket.startLag))),
  };
}

/** Groups the window's buckets into its steps and makes a point of each, empty steps included. */
export function timeseriesOf(
  scope: string,
  window: TimeseriesWindow,
  range: { fromMinute: number; toMinute: number },
  buckets: readonly MinuteBucket[],
): MonitoringTimeseries {
  const stepMs = TIMESERIES_WINDOWS[window].stepMinutes * MINUTE_MS;
  const end = range.toMinute + MINUTE_MS;
  const steps: MinuteBucket[][] = Array.from({ length: Math.ceil((end - range.fromMinute) / stepMs) }, () => []);
  for (const bucket of buckets) {
    // Buckets after the window hold only runs queued for later (no finished run); none before it is read.
    if (bucket.minute < range.fromMinute || bucket.minute > range.toMinute) continue;
    steps[Math.floor((bucket.minute - range.fromMinute) / stepMs)]?.push(bucket);
  }
  return {
    scope,
    window,
    from: new Date(range.fromMinute).toISOString(),
    to: new Date(end).toISOString(),
    stepSeconds: stepMs / 1000,
    points: steps.map((step, i) => pointOf(range.fromMinute + i * stepMs, step)),
  };
}

/** Reads the buckets of `scope` for the window ending at `now` (the stats' window) and builds its series. */
export async function monitoringTimeseries(
  deps: { aggregates: RunAggregates },
  scope: string,
  window: TimeseriesWindow,
  now: number,
): Promise<MonitoringTimeseries> {
  const range = windowMinutes(window, now);
  return timeseriesOf(scope, window, range, await deps.aggregates.read(scope, range.fromMinute, range.toMinute));
}
