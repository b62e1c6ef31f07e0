/**
 * The scanner: EventBridge invokes it every minute to materialize due occurrences, and to sweep
 * runs stuck past their lease or parked beyond the SQS delay limit. Every pass leaves a heartbeat
 * per shard in the metrics table (GET /v1/monitoring/system, GET /v1/health, the alarm on
 * a missing heartbeat) and its duration, output and lag as metrics.
 *
 * A failure stays where it happened: a job quarantined or failed is logged with its ids and the
 * pass goes on; a shard whose scan or sweep failed writes a heartbeat carrying the error, so
 * health names that shard while every other shard's heartbeat stays fresh.
 */

import { allShards } from '#core/due-shard';
import type { ShardHeartbeat } from '#core/metrics/ports';
import { type ExpireResult, expireAsyncRuns } from '#core/use-cases/async/expire-async-runs';
import { reasonOf } from '#core/use-cases/job-faults';
import { type ScanResult, scanDueJobs, scanResultOf, withinBudget } from '#core/use-cases/scan-due-jobs';
import { type SweepResult, sweepRuns } from '#core/use-cases/sweep-runs';
import { logger } from './logger.ts';
import { instrumentedWithMetrics, MetricUnit, metrics } from './observability.ts';
import {
  asyncRunDeps,
  dispatchIntents,
  materializeDeps,
  runDispatcher,
  runRepository,
  scannerHeartbeats,
  schedulingConfig,
} from './wiring.ts';

/**
 * How long the scan and the sweep may take before a shard still going is reported as cut short:
 * well inside the scanner Lambda's 50 s timeout (lib/timeouts.ts), so the heartbeats are always
 * written — a slow shard is named by health instead of every shard going stale.
 */
export const SCANNER_PASS_BUDGET_MS = 40_000;

export const SCANNER_METRICS = {
  duration: 'ScannerDurationMs',
  materialized: 'ScannerRunsMaterialized',
  shardLag: 'ScannerShardLag',
  /** Shards whose scan or sweep failed this pass. */
  shardFailures: 'ScannerShardFailures',
  /** Jobs taken out of the due-index because their own data made them fail. */
  quarantined: 'JobsQuarantined',
  /** Jobs that failed this pass for a transient reason (tried again next pass). */
  jobFailures: 'ScannerJobFailures',
  /** Async runs ended by the deadline pass because their worker stopped heartbeating. */
  heartbeatTimeouts: 'HeartbeatTimeouts',
  /** Async runs ended by the deadline pass at their max duration, or their cancel's grace. */
  asyncDeadlinesEnded: 'AsyncDeadlinesEnded',
  /** Deadline-index shards or runs the pass could not decide (tried again next pass). */
  deadlineFailures: 'ScannerDeadlineFailures',
} as const;

export async function scan(): Promise<{ materialized: number; swept: number }> {
  const started = Date.now();
  const elapsedMs = () => Date.now() - started;
  const [scanned, swept, expired] = await Promise.allSettled([
    scanDueJobs({ ...materializeDeps(), intents: dispatchIntents() }, started, elapsedMs, SCANNER_PASS_BUDGET_MS),
    withinBudget(
      sweepRuns(
        { runs: runRepository(), dispatcher: runDispatcher(), config: schedulingConfig(), intents: dispatchIntents() },
        started,
      ),
      SCANNER_PASS_BUDGET_MS,
    ),
    // Async runs whose heartbeat, max duration or cancel grace passed (core/async/deadline-index.ts).
    withinBudget(
      expireAsyncRuns(
        {
          ...asyncRunDeps(),
          onError: (error) => logger.warn('async run not decided this pass; tried again next pass', { error }),
        },
        allShards(schedulingConfig().shardCount),
      ),
      SCANNER_PASS_BUDGET_MS,
    ),
  ]);
  // Neither rejects for one shard or one job; a rejection here is a bug, reported on every shard.
  const result = settledOr(scanned, (error) => emptyScan(`scan: ${reasonOf(error)}`));
  const sweep = settledOr(swept, (error): SweepResult => ({ found: 0, resent: 0, failedShards: everyShard(error) }));
  const deadlines = settledOr(expired, (error): ExpireResult => {
    logger.error('deadline pass failed', { error: error as Error });
    return { ended: {}, failed: 1 };
  });
  const durationMs = Date.now() - started;

  for (const job of result.quarantined) logger.error('job quarantined', { ...job });
  for (const job of result.failed) logger.warn('job not materialized this pass; retried next pass', { ...job });
  const beats = heartbeatsOf(result, sweep, started);
  for (const beat of beats)
    if (beat.error) logger.error('scanner shard failed', { shard: beat.shard, error: beat.error });

  metrics.addMetric(SCANNER_METRICS.duration, MetricUnit.Milliseconds, durationMs);
  metrics.addMetric(SCANNER_METRICS.materialized, MetricUnit.Count, result.runsCreated);
  metrics.addMetric(SCANNER_METRICS.quarantined, MetricUnit.Count, result.quarantined.length);
  metrics.addMetric(SCANNER_METRICS.jobFailures, MetricUnit.Count, result.failed.length);
  const { heartbeat_timeout: heartbeatTimeouts = 0, ...otherEnds } = deadlines.ended;
  metrics.addMetric(SCANNER_METRICS.heartbeatTimeouts, MetricUnit.Count, heartbeatTimeouts);
  metrics.addMetric(
    SCANNER_METRICS.asyncDeadlinesEnded,
    MetricUnit.Count,
    Object.values(otherEnds).reduce((sum, count) => sum + count, 0),
  );
  metrics.addMetric(SCANNER_METRICS.deadlineFailures, MetricUnit.Count, deadlines.failed);
  metrics.addMetric(SCANNER_METRICS.shardFailures, MetricUnit.Count, beats.filter((beat) => beat.error).length);
  // One value per shard in the same EMF line (no shard dimension): max and percentiles still show a lagging shard.
  for (const shard of result.perShard)
    metrics.addMetric(SCANNER_METRICS.shardLag, MetricUnit.Milliseconds, shard.lagMs);
  await scannerHeartbeats().beat(beats);
  const { perShard: _perShard, quarantined, failed, ...totals } = result;
  logger.info('scan finished', {
    ...totals,
    quarantined: quarantined.length,
    failedJobs: failed.length,
    sweptFound: sweep.found,
    sweptResent: sweep.resent,
    asyncEnded: deadlines.ended,
    durationMs,
  });
  return { materialized: result.runsCreated, swept: sweep.resent };
}

/** One heartbeat per shard: its scan, with the scan's or the sweep's error when either failed. */
function heartbeatsOf(result: ScanResult, sweep: SweepResult, at: number): ShardHeartbeat[] {
  const sweepErrors = new Map((sweep.failedShards ?? []).map((failure) => [failure.shard, failure.error]));
  return result.perShard.map(({ error, ...pass }) => {
    const sweepError = sweepErrors.get(pass.shard) ?? sweepErrors.get(EVERY_SHARD);
    const errors = [error, sweepError && `sweep: ${sweepError}`].filter((e): e is string => Boolean(e));
    return { ...pass, at, ...(errors.length > 0 ? { error: errors.join('; ') } : {}) };
  });
}

const EVERY_SHARD = '*';

function everyShard(error: unknown): Array<{ shard: string; error: string }> {
  return [{ shard: EVERY_SHARD, error: reasonOf(error) }];
}

function emptyScan(error: string): ScanResult {
  const perShard = allShards(schedulingConfig().shardCount).map((shard) => ({
    shard,
    jobsFound: 0,
    runsCreated: 0,
    lagMs: 0,
    durationMs: 0,
    error,
  }));
  return scanResultOf(perShard);
}

function settledOr<T>(settled: PromiseSettledResult<T>, fallback: (error: unknown) => T): T {
  return settled.status === 'fulfilled' ? settled.value : fallback(settled.reason);
}

export const handler = instrumentedWithMetrics(scan);
