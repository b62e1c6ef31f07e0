/**
 * GET /v1/monitoring/system (admin scope only) — the shared machinery: dispatch queue depth
 * (released, in flight, delayed), dead-letter queue depth, both queues' oldest-message age
 * (CloudWatch), the scanner's last pass per shard (heartbeats), the executor's in-flight count and
 * the async runs in flight (the runs table's deadline index).
 * Tenants get 403: these numbers mix everyone's work.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { logger } from '../logger.ts';
import { instrumented } from '../observability.ts';
import { asyncRunsInFlight, monitoredQueueAges, monitoredQueueStats, scannerHeartbeats } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { oldestMessageAgeView } from './queue-age-view.ts';
import { errorResponse, json } from './responses.ts';
import { scopeOf } from './scope.ts';

export async function getMonitoringSystem(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  if (!scopeOf(event).admin) return errorResponse(403, 'FORBIDDEN', 'The system view needs the admin scope');
  const queues = monitoredQueueStats();
  const [dispatch, deadLetter, beats, ages, asyncRuns] = await Promise.all([
    queues.dispatch(),
    queues.deadLetter(),
    scannerHeartbeats().read(),
    monitoredQueueAges().read(),
    asyncRunsInFlight().count(Date.now()),
  ]);
  for (const [queue, age] of Object.entries(ages)) {
    if (age.kind === 'error') logger.warn('oldest-message age not read from CloudWatch', { queue, error: age.error });
  }
  const now = Date.now();
  const shards = beats
    .sort((a, b) => a.shard.localeCompare(b.shard))
    .map((beat) => ({
      shard: beat.shard,
      lastRunAt: new Date(beat.at).toISOString(),
      ageSeconds: Math.round((now - beat.at) / 1000),
      durationMs: beat.durationMs,
      jobsFound: beat.jobsFound,
      runsCreated: beat.runsCreated,
      lagMs: beat.lagMs,
      // The latest pass over this shard failed: why (the scanner's log has the rest).
      error: beat.error ?? null,
    }));
  const newest = beats.reduce<number | undefined>((max, beat) => Math.max(max ?? 0, beat.at), undefined);
  return json(200, {
    dispatchQueue: {
      ...dispatch,
      depth: dispatch.visible + dispatch.inFlight + dispatch.delayed,
      ...oldestMessageAgeView(ages.dispatch),
    },
    deadLetterQueue: {
      depth: deadLetter.visible + deadLetter.inFlight + deadLetter.delayed,
      ...oldestMessageAgeView(ages.deadLetter),
    },
    scanner: { lastRunAt: newest === undefined ? null : new Date(newest).toISOString(), shards },
    // Messages received and not yet deleted: runs an executor is working on (or waiting out the due second for).
    executor: { inFlight: dispatch.inFlight },
    // Accepted async runs a worker holds: `overdue` ones are past a deadline the scanner has not acted on yet.
    asyncRuns,
  });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(getMonitoringSystem).use(httpErrors());
