/**
 * The scanner: EventBridge invokes it every minute to materialize due occurrences, and to sweep
 * runs stuck past their lease or parked beyond the SQS delay limit. Every pass leaves a heartbeat
 * per shard in the metrics table (GET /v1/monitoring/system, GET /v1/health, the alarm on
 * a missing heartbeat) and its duration, output and lag as metrics.
 */
import { scanDueJobs } from '#core/use-cases/scan-due-jobs';
import { sweepRuns } from '#core/use-cases/sweep-runs';
import { logger } from './logger.ts';
import { instrumentedWithMetrics, MetricUnit, metrics } from './observability.ts';
import { materializeDeps, runDispatcher, runRepository, scannerHeartbeats, schedulingConfig } from './wiring.ts';

export const SCANNER_METRICS = {
  duration: 'ScannerDurationMs',
  materialized: 'ScannerRunsMaterialized',
  shardLag: 'ScannerShardLag',
} as const;

export async function scan(): Promise<{ materialized: number; swept: number }> {
  const started = Date.now();
  const [result, sweep] = await Promise.all([
    scanDueJobs(materializeDeps(), started, () => Date.now() - started),
    sweepRuns({ runs: runRepository(), dispatcher: runDispatcher(), config: schedulingConfig() }, started),
  ]);
  const durationMs = Date.now() - started;
  metrics.addMetric(SCANNER_METRICS.duration, MetricUnit.Milliseconds, durationMs);
  metrics.addMetric(SCANNER_METRICS.materialized, MetricUnit.Count, result.runsCreated);
  // One value per shard in the same EMF line (no shard dimension): max and percentiles still show a lagging shard.
  for (const shard of result.perShard)
    metrics.addMetric(SCANNER_METRICS.shardLag, MetricUnit.Milliseconds, shard.lagMs);
  await scannerHeartbeats().beat(result.perShard.map((shard) => ({ ...shard, at: started })));
  const { perShard: _perShard, ...totals } = result;
  logger.info('scan finished', { ...totals, sweptFound: sweep.found, sweptResent: sweep.resent, durationMs });
  return { materialized: result.runsCreated, swept: sweep.resent };
}

export const handler = instrumentedWithMetrics(scan);
