import { describe, expect, it } from 'vitest';
import { bucketOf, emptyHistogram } from '#core/metrics/lag-histogram';
import type { MinuteBucket } from '#core/metrics/minute-bucket';
import { statsOf, windowMinutes } from '#core/metrics/monitoring-stats';
import { minuteOf, sampleOf } from '#core/metrics/run-sample';
import type { ErrorType } from '#core/model';

const NOW = Date.UTC(2026, 5, 1, 12, 30, 42);

function bucket(minute: number, counts: MinuteBucket['counts'], lags: number[] = []): MinuteBucket {
  const startLag = emptyHistogram();
  for (const lag of lags) startLag[bucketOf(lag)] = (startLag[bucketOf(lag)] ?? 0) + 1;
  return {
    minute,
    counts,
    retried: 0,
    slaMissed: 0,
    heartbeatTimeouts: 0,
    startLag,
    duration: emptyHistogram(),
    queuedIn: 0,
    queuedOut: 0,
  };
}

describe('monitoring stats', () => {
  it('covers the current minute and the ones before it', () => {
    expect(windowMinutes('5m', NOW)).toEqual({ fromMinute: minuteOf(NOW) - 4 * 60_000, toMinute: minuteOf(NOW) });
    expect(windowMinutes('24h', NOW).fromMinute).toBe(minuteOf(NOW) - 1439 * 60_000);
  });

  it('sums buckets into counts, rates over runs that ran, and percentiles as bucket bounds', () => {
    const range = windowMinutes('1h', NOW);
    const stats = statsOf(
      'tenant-a',
      '1h',
      range,
      [
        bucket(range.toMinute, { SUCCEEDED: 6, FAILED: 1 }, [5, 5, 5, 20, 20, 40, 400]),
        bucket(range.toMinute - 60_000, { SUCCEEDED: 2, DEAD_LETTERED: 1, CANCELLED: 3 }, [5, 3_000]),
      ],
      { ACTIVE: 4, FAILED: 1 },
    );

    expect(stats.runs.byStatus).toMatchObject({ SUCCEEDED: 8, FAILED: 1, DEAD_LETTERED: 1, CANCELLED: 3 });
    expect(stats.runs.total).toBe(13);
    expect(stats.runs.successRate).toBe(0.8);
    expect(stats.runs.errorRate).toBe(0.2);
    expect(stats.runs.deadLetters).toBe(1);
    expect(stats.startLagMs).toMatchObject({ count: 9, p50: 25, p95: 5_000, p99: 5_000 });
    expect(stats.jobs.byStatus).toEqual({ ACTIVE: 4, FAILED: 1 });
  });

  it('counts runs due but not started as the queued in − out of the buckets up to the current minute', () => {
    const range = windowMinutes('5m', NOW);
    const queued = (minute: number, queuedIn: number, queuedOut: number) => ({
      ...bucket(minute, {}),
      queuedIn,
      queuedOut,
    });
    const stats = statsOf(
      't',
      '5m',
      range,
      [queued(range.fromMinute, 3, 3), queued(range.toMinute - 60_000, 4, 1), queued(range.toMinute, 2, 0)],
      {},
    );
    expect(stats.runs.dueNotStarted).toBe(5);
    // A bucket after the window (runs not due yet) never counts, should a read return it.
    const withFuture = statsOf('t', '5m', range, [queued(range.toMinute + 60_000, 7, 0)], {});
    expect(withFuture.runs.dueNotStarted).toBe(0);
  });

  it('reports no rates or percentiles for an empty window', () => {
    const stats = statsOf('t', '5m', windowMinutes('5m', NOW), [], {});
    expect(stats.runs).toMatchObject({ total: 0, successRate: null, errorRate: null, dueNotStarted: 0 });
    expect(stats.durationMs).toMatchObject({ count: 0, p50: null });
  });

  it('samples a finished run into its completion minute with its lag and duration cells', () => {
    const sample = sampleOf(
      {
        tenantId: 't',
        status: 'FAILED',
        scheduledFor: NOW - 10_000,
        startedAt: NOW - 9_000,
        durationMs: 30,
        completedAt: NOW,
        nextAttemptAt: NOW + 1_000,
        slaSeconds: 5,
      },
      NOW + 5,
    );
    expect(sample).toEqual({
      tenantId: 't',
      status: 'FAILED',
      minute: minuteOf(NOW),
      retried: true,
      slaMissed: false,
      heartbeatTimeout: false,
      startLagBucket: bucketOf(1_000),
      durationBucket: bucketOf(30),
    });
  });

  it("marks an async run's missed heartbeat, and no other timeout, as a heartbeat timeout", () => {
    const timedOut = (errorType: ErrorType) =>
      sampleOf({ tenantId: 't', status: 'TIMED_OUT', scheduledFor: NOW - 10_000, completedAt: NOW, errorType }, NOW);

    expect(timedOut('heartbeat_timeout')).toMatchObject({ status: 'TIMED_OUT', heartbeatTimeout: true });
    expect(timedOut('timeout').heartbeatTimeout).toBe(false);
  });

  it('sums the heartbeat timeouts of the window, still counting them as TIMED_OUT runs', () => {
    const range = windowMinutes('1h', NOW);
    const stats = statsOf(
      't',
      '1h',
      range,
      [
        { ...bucket(range.toMinute, { TIMED_OUT: 3 }), heartbeatTimeouts: 2 },
        { ...bucket(range.toMinute - 60_000, { TIMED_OUT: 1, SUCCEEDED: 4 }), heartbeatTimeouts: 1 },
      ],
      {},
    );

    expect(stats.runs.heartbeatTimeouts).toBe(3);
    expect(stats.runs.byStatus.TIMED_OUT).toBe(4);
    expect(stats.runs.errorRate).toBe(0.5);
  });
});
