/**
 * GET /v1/monitoring/system (admin scope only) — the shared machinery: for each priority lane
 * (`lanes`), its dispatch queue's depth (released, in flight, delayed) and its dead-letter queue's
 * depth, with both queues' oldest-message age (CloudWatch) — the top-level `dispatchQueue` and
 * `deadLetterQueue` are the `normal` lane's, as before lanes — the scanner's last pass per shard (heartbeats), the executor's in-flight count and
 * the async runs in flight (the runs table's deadline index).
 * Tenants get 403: these numbers mix everyone's work.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { QueueStats } from '#adapters/sqs/queue-stats';
import { PRIORITIES, type Priority } from '#core/priority';
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
  const [lanes, beats, ages, asyncRuns] = await Promise.all([
    Promise.all(PRIORITIES.map((lane) => Promise.all([queues.dispatch(lane), queues.deadLetter(lane)]))),
    scannerHeartbeats().read(),
    monitoredQueueAges().read(),
    asyncRunsInFlight().count(Date.now()),
  ]);
  for (const [queue, age] of Object.entries(ages)) {
    if (age.kind === 'error') logger.warn('oldest-message age not read from CloudWatch', { queue, error: age.error });
  }
  const laneView = (lane: Priority) => {
    const [dispatch, deadLetter] = lanes[PRIORITIES.indexOf(lane)] as [QueueStats, QueueStats];
    return {
      dispatchQueue: {
        ...dispatch,
        depth: dispatch.visible + dispatch.inFlight + dispatch.delayed,
        ...oldestMessageAgeView(ages[`${lane}.dispatch`]),
      },
      deadLetterQueue: {
        depth: deadLetter.visible + deadLetter.inFlight + deadLetter.delayed,
        ...oldestMessageAgeView(ages[`${lane}.deadLetter`]),
      },
    };
  };
  const laneViews = { high: laneView('high'), normal: laneView('normal'), low: laneView('low') };
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
    // The `normal` lane's, where they were before lanes (compatibility).
    dispatchQueue: laneViews.normal.dispatchQueue,
    deadLetterQueue: laneViews.normal.deadLetterQueue,
    lanes: laneViews,
    scanner: { lastRunAt: newest === undefined ? null : new Date(newest).toISOString(), shards },
    // Messages received and not yet deleted, every lane's: runs an executor is working on (or waiting out the due second for).
    executor: { inFlight: PRIORITIES.reduce((sum, lane) => sum + laneViews[lane].dispatchQueue.inFlight, 0) },
    // Accepted async runs a worker holds: `overdue` ones are past a deadline the scanner has not acted on yet.
    asyncRuns,
  });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(getMonitoringSystem).use(httpErrors());
