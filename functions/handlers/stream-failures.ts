/**
 * The stream-failure handler: consumes the completion mapping's on-failure queue. Each message
 * names a runs-stream batch Lambda gave up on (its retries ran out, or its records grew too old);
 * the records are read back from the stream and every run that had reached a terminal state is
 * completed again (core/use-cases/stream-failures.ts), so a lost retry or job update is made after
 * all. Every run is logged by name; runs completed are counted (StreamRunsRedriven); a range the
 * stream no longer holds is counted (StreamRecordsLost, alarmed) and logged with its coordinates.
 * A failure that may clear is retried through the queue a bounded number of times, then set aside.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, DynamoDBRecord, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { createDynamoDbStreamsClient } from '#adapters/aws-clients';
import { readStreamRange } from '#adapters/dynamodb/stream-range';
import { ENV, requiredEnv } from '#adapters/environment';
import { jobCountBatch } from '#core/metrics/job-count-batch';
import { completeRun } from '#core/use-cases/complete-run';
import {
  type FailedStreamBatch,
  redriveStreamBatch,
  type StreamBatchRedrive,
  worthRetrying,
} from '#core/use-cases/stream-failures';
import { logger } from './logger.ts';
import { instrumentedWithMetrics, MetricUnit, metrics } from './observability.ts';
import { receiveCountOf } from './run-metrics.ts';
import { readOrSetAside, setAside } from './set-aside.ts';
import { terminalTransitionOf } from './stream-aggregates.ts';
import { completeRunDeps, jobCountsUpdater } from './wiring.ts';

export const STREAM_FAILURE_METRICS = { redriven: 'StreamRunsRedriven', lost: 'StreamRecordsLost' } as const;
/**
 * Receives of one message before a failure that might clear is given up on. A range read as gone
 * is believed only from this receive on too: DynamoDB Local reports a live position as trimmed now
 * and then (functions/local/stream-poller.ts), and a real trim cannot get worse by waiting.
 */
export const STREAM_FAILURE_MAX_RECEIVES = 3;

const processor = new BatchProcessor(EventType.SQS);
let streamsClient: ReturnType<typeof createDynamoDbStreamsClient> | undefined;

/** Thrown for a message that is not an on-failure record of this stage's runs stream. */
class UnreadableFailureRecordError extends Error {
  override readonly name = 'UnreadableFailureRecordError';
}

/** DynamoDB Streams shard ids: 28 to 65 characters. */
const SHARD_ID = /^[A-Za-z0-9_.-]{28,65}$/;
/** DynamoDB Streams sequence numbers: 21 to 40 digits. */
const SEQUENCE_NUMBER = /^\d{21,40}$/;

/** The batch coordinates of Lambda's on-failure record (`DDBStreamBatchInfo`), bounded. */
export function parseFailedStreamBatch(body: string, ownStreamArn: string): FailedStreamBatch {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new UnreadableFailureRecordError('the message is not JSON');
  }
  const info = (parsed as { DDBStreamBatchInfo?: Record<string, unknown> } | null)?.DDBStreamBatchInfo;
  if (typeof info !== 'object' || info === null) throw new UnreadableFailureRecordError('no DDBStreamBatchInfo');
  const { shardId, startSequenceNumber, endSequenceNumber, streamArn } = info;
  if (typeof shardId !== 'string' || !SHARD_ID.test(shardId)) throw new UnreadableFailureRecordError('bad shardId');
  for (const sequence of [startSequenceNumber, endSequenceNumber]) {
    if (typeof sequence !== 'string' || !SEQUENCE_NUMBER.test(sequence)) {
      throw new UnreadableFailureRecordError('bad sequence number');
    }
  }
  if (streamArn !== ownStreamArn) throw new UnreadableFailureRecordError('not the runs stream of this stage');
  if (BigInt(startSequenceNumber as string) > BigInt(endSequenceNumber as string)) {
    throw new UnreadableFailureRecordError('the range ends before it starts');
  }
  return {
    streamArn,
    shardId,
    startSequenceNumber: startSequenceNumber as string,
    endSequenceNumber: endSequenceNumber as string,
  };
}

async function redrive(batch: FailedStreamBatch): Promise<StreamBatchRedrive> {
  streamsClient ??= createDynamoDbStreamsClient();
  const client = streamsClient;
  // As the completion handler: the jobs these runs finish move their tenants' job-status counters.
  const jobCounts = jobCountBatch(jobCountsUpdater());
  const deps = completeRunDeps(jobCounts.counts);
  const result = await redriveStreamBatch<DynamoDBRecord>(
    {
      readRange: (range) => readStreamRange(client, range, process.env.AWS_REGION ?? 'us-east-1'),
      completedRunOf: terminalTransitionOf,
      complete: (run) => completeRun(deps, run, Date.now()),
    },
    batch,
  );
  await jobCounts.flush();
  return result;
}

async function recordHandler(record: SQSRecord): Promise<void> {
  const batch = readOrSetAside(
    'stream-failures',
    record,
    () => parseFailedStreamBatch(record.body, requiredEnv(ENV.runsStreamArn)),
    (error) => error instanceof UnreadableFailureRecordError,
  );
  if (!batch) return;
  const lastTry = (receiveCountOf(record) ?? 1) >= STREAM_FAILURE_MAX_RECEIVES;
  const result = await redrive(batch);
  const position = { messageId: record.messageId, ...batch };
  if (result.kind === 'gone') {
    if (!lastTry) throw new Error(`stream range of ${batch.shardId} not found; reading it again later`);
    logger.error('stream records lost: the failed batch is no longer in the runs stream', position);
    metrics.addMetric(STREAM_FAILURE_METRICS.lost, MetricUnit.Count, 1);
    return;
  }
  for (const { run, change } of result.redriven) {
    logger.warn('run completed again from a failed stream batch', { ...idsOf(run), status: run.status, change });
  }
  if (result.redriven.length > 0) {
    metrics.addMetric(STREAM_FAILURE_METRICS.redriven, MetricUnit.Count, result.redriven.length);
  }
  if (worthRetrying(result) && !lastTry) {
    throw new Error(`${result.notRedriven.length} run(s) of a failed stream batch not completed; trying again`);
  }
  for (const failure of result.notRedriven) {
    setAside('stream-failures', new Error(failure.reason), { ...position, ...idsOf(failure.run) });
  }
  logger.info('failed stream batch handled', {
    ...position,
    records: result.records,
    redriven: result.redriven.length,
    notRedriven: result.notRedriven.length,
  });
}

function idsOf(run: { tenantId: string; jobId: string; runId: string; attempt: number }) {
  return { tenantId: run.tenantId, jobId: run.jobId, runId: run.runId, attempt: run.attempt };
}

export async function handleStreamFailures(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  return processPartialResponse(event, recordHandler, processor, { context });
}

export const handler = instrumentedWithMetrics(handleStreamFailures);
