import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bucketOf, emptyHistogram, LAG_BUCKET_BOUNDS_MS, LAG_BUCKET_COUNT } from '#core/metrics/lag-histogram';
import type { MinuteBucket } from '#core/metrics/minute-bucket';
import { statsOf, windowMinutes } from '#core/metrics/monitoring-stats';
import {
  monitoringTimeseries,
  POINT_COUNT_NAMES,
  TIMESERIES_WINDOWS,
  type TimeseriesWindow,
  timeseriesOf,
} from '#core/metrics/monitoring-timeseries';
import type { RunAggregates } from '#core/metrics/ports';
import { minuteOf } from '#core/metrics/run-sample';
import { TERMINAL_RUN_STATUSES } from '#core/run-state';

const NOW = Date.UTC(2026, 5, 1, 12, 30, 42);
const MINUTE = 60_000;

function histogramOf(values: number[]) {
  const histogram = emptyHistogram();
  for (const value of values) histogram[bucketOf(value)] = (histogram[bucketOf(value)] ?? 0) + 1;
  return histogram;
}

function bucket(
  minute: number,
  counts: MinuteBucket['counts'],
  latencies: { lags?: number[]; durations?: number[] } = {},
): MinuteBucket {
  return {
    minute,
    counts,
    retried: 0,
    slaMissed: 0,
    heartbeatTimeouts: 0,
    startLag: histogramOf(latencies.lags ?? []),
    duration: histogramOf(latencies.durations ?? []),
    queuedIn: 0,
    queuedOut: 0,
  };
}

describe('monitoring timeseries', () => {
  it('has one point per minute of the hour, the current minute last, zeros and null percentiles where nothing finished', () => {
    const range = windowMinutes('1h', NOW);
    const series = timeseriesOf('tenant-a', '1h', range, [
      bucket(range.toMinute, { SUCCEEDED: 2, FAILED: 1 }, { lags: [5, 40, 400], durations: [20, 20, 3_000] }),
      bucket(range.toMinute - 2 * MINUTE, { TIMED_OUT: 1, DEAD_LETTERED: 1 }),
    ]);

    expect(series).toMatchObject({
      scope: 'tenant-a',
      window: '1h',
      from: new Date(minuteOf(NOW) - 59 * MINUTE).toISOString(),
      to: new Date(minuteOf(NOW) + MINUTE).toISOString(),
      stepSeconds: 60,
    });
    expect(series.points).toHaveLength(60);
    expect(series.points.at(-1)).toEqual({
      at: new Date(minuteOf(NOW)).toISOString(),
      succeeded: 2,
      failed: 1,
      timedOut: 0,
      cancelled: 0,
      skipped: 0,
      deadLettered: 0,
      retried: 0,
      slaMissed: 0,
      durationMs: { p50: 25, p95: 5_000 },
      startLagMs: { p50: 50, p95: 500 },
    });
    expect(series.points.at(-3)).toMatchObject({ timedOut: 1, deadLettered: 1, succeeded: 0 });
    expect(series.points.at(-2)).toEqual({
      at: new Date(minuteOf(NOW) - MINUTE).toISOString(),
      succeeded: 0,
      failed: 0,
      timedOut: 0,
      cancelled: 0,
      skipped: 0,
      deadLettered: 0,
      retried: 0,
      slaMissed: 0,
      durationMs: { p50: null, p95: null },
      startLagMs: { p50: null, p95: null },
    });
  });

  it('merges a day into 96 quarter hours, its percentiles from the merged minute histograms', () => {
    const range = windowMinutes('24h', NOW);
    // Two minutes of the same (first) quarter hour: alone, the second one's p95 is 5 s (2 slow of
    // 21); merged with the first one's fast lags, 38 of 40 are fast and the p95 (rank 38) is 10 ms.
    const fast = Array.from({ length: 19 }, () => 5);
    const series = timeseriesOf('t', '24h', range, [
      bucket(range.fromMinute, { SUCCEEDED: 19 }, { lags: fast }),
      bucket(range.fromMinute + 14 * MINUTE, { FAILED: 1, SUCCEEDED: 19 }, { lags: [...fast, 4_000, 4_000] }),
      bucket(range.fromMinute + 15 * MINUTE, { CANCELLED: 3 }),
    ]);

    expect(series.stepSeconds).toBe(900);
    expect(series.points).toHaveLength(96);
    expect(series.points[0]).toMatchObject({
      at: series.from,
      succeeded: 38,
      failed: 1,
      startLagMs: { p50: 10, p95: 10 },
    });
    expect(series.points[1]).toMatchObject({ cancelled: 3, succeeded: 0, startLagMs: { p50: null, p95: null } });
    // 19 fast and 3 slow in one quarter hour: the p95 (rank 21 of 22) is slow.
    const tipped = timeseriesOf('t', '24h', range, [
      bucket(range.fromMinute, {}, { lags: fast }),
      bucket(range.fromMinute + 7 * MINUTE, {}, { lags: [4_000, 4_000, 4_000] }),
    ]);
    expect(tipped.points[0]?.startLagMs).toEqual({ p50: 10, p95: 5_000 });
    // The last quarter hour ends with the current minute.
    expect(Date.parse(series.points.at(-1)?.at as string) + 15 * MINUTE).toBe(Date.parse(series.to));
  });

  it('reports a percentile above the last bound as null, as the stats do', () => {
    const range = windowMinutes('1h', NOW);
    const series = timeseriesOf('t', '1h', range, [bucket(range.toMinute, { TIMED_OUT: 1 }, { durations: [400_000] })]);
    expect(series.points.at(-1)?.durationMs).toEqual({ p50: null, p95: null });
    expect(LAG_BUCKET_BOUNDS_MS.at(-1)).toBeLessThan(400_000);
  });

  it('leaves out buckets outside the window, should a read return them', () => {
    const range = windowMinutes('1h', NOW);
    const series = timeseriesOf('t', '1h', range, [
      bucket(range.toMinute + MINUTE, { SUCCEEDED: 5 }),
      bucket(range.fromMinute - MINUTE, { SUCCEEDED: 7 }),
    ]);
    expect(series.points.reduce((sum, point) => sum + point.succeeded, 0)).toBe(0);
  });

  it('reads the window of the stats for its scope, once', async () => {
    const reads: Array<[string, number, number]> = [];
    const aggregates: RunAggregates = {
      add: async () => 0,
      read: async (scope, fromMinute, toMinute) => {
        reads.push([scope, fromMinute, toMinute]);
        return [bucket(toMinute, { SUCCEEDED: 1 })];
      },
    };
    const series = await monitoringTimeseries({ aggregates }, '*', '24h', NOW);
    const range = windowMinutes('24h', NOW);
    expect(reads).toEqual([['*', range.fromMinute, range.toMinute]]);
    expect(series.points.at(-1)?.succeeded).toBe(1);
  });

  it("adds up, point by point, to the stats' totals of the same window, with every step present once (property)", () => {
    const windows = Object.keys(TIMESERIES_WINDOWS) as TimeseriesWindow[];
    const count = fc.nat({ max: 50 });
    const histogram = fc.array(fc.nat({ max: 20 }), { minLength: LAG_BUCKET_COUNT, maxLength: LAG_BUCKET_COUNT });
    fc.assert(
      fc.property(
        fc.constantFrom(...windows),
        fc.integer({ min: Date.UTC(2001, 0, 1), max: Date.UTC(2199, 0, 1) }),
        // Minute offsets from the window's first minute, some outside it (before and after).
        fc.uniqueArray(fc.integer({ min: -30, max: 1_470 }), { maxLength: 80 }),
        fc.array(
          fc.record({
            counts: fc.record(
              Object.fromEntries(TERMINAL_RUN_STATUSES.map((status) => [status, count])) as Record<
                (typeof TERMINAL_RUN_STATUSES)[number],
                typeof count
              >,
              { requiredKeys: [] },
            ),
            retried: count,
            slaMissed: count,
            startLag: histogram,
            duration: histogram,
          }),
          { minLength: 80, maxLength: 80 },
        ),
        (window, now, offsets, contents) => {
          const range = windowMinutes(window, now);
          const buckets: MinuteBucket[] = offsets.map((offset, i) => ({
            ...(contents[i] as Omit<MinuteBucket, 'minute' | 'queuedIn' | 'queuedOut'>),
            minute: range.fromMinute + offset * MINUTE,
            queuedIn: 0,
            queuedOut: 0,
          }));
          const inWindow = buckets.filter((b) => b.minute >= range.fromMinute && b.minute <= range.toMinute);

          const series = timeseriesOf('t', window, range, buckets);
          const stats = statsOf('t', window, range, inWindow, {});

          const stepMs = series.stepSeconds * 1000;
          expect(series.from).toBe(stats.from);
          expect(series.to).toBe(stats.to);
          expect(series.points.length * stepMs).toBe(Date.parse(series.to) - Date.parse(series.from));
          series.points.forEach((point, i) => {
            expect(Date.parse(point.at)).toBe(Date.parse(series.from) + i * stepMs);
          });
          for (const status of TERMINAL_RUN_STATUSES) {
            const name = POINT_COUNT_NAMES[status];
            expect(
              series.points.reduce((sum, point) => sum + point[name], 0),
              status,
            ).toBe(stats.runs.byStatus[status]);
          }
          expect(series.points.reduce((sum, point) => sum + point.retried, 0)).toBe(stats.runs.retried);
          expect(series.points.reduce((sum, point) => sum + point.slaMissed, 0)).toBe(stats.runs.slaMissed);
          // Each point's percentiles are those the stats give for its step's minutes alone.
          for (const point of series.points) {
            const at = Date.parse(point.at);
            const step = inWindow.filter((b) => b.minute >= at && b.minute < at + stepMs);
            const own = statsOf('t', window, range, step, {});
            expect(point.startLagMs).toEqual({ p50: own.startLagMs.p50, p95: own.startLagMs.p95 });
            expect(point.durationMs).toEqual({ p50: own.durationMs.p50, p95: own.durationMs.p95 });
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
