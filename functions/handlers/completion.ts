/**
 * The completion handler, on the runs table's stream (filter: completion-filter.ts). A run that
 * has just reached a terminal state drives what happens to its job next; every delivered record
 * (terminal transitions, and runs entering or leaving QUEUED) feeds the monitoring aggregates.
 * A record that can never succeed (an unreadable image, a write the store refuses) is set aside
 * (set-aside.ts): logged, counted, and not retried, so it never holds up its batch or shard.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { jobCountBatch } from '#core/metrics/job-count-batch';
import type { JobStatusCounts } from '#core/metrics/ports';
import { completeRun } from '#core/use-cases/complete-run';
import { isOwnFailure } from '#core/use-cases/job-faults';
import { TaskRunEndBatch } from '#core/use-cases/workflows/task-run-end-batch';
import { logger } from './logger.ts';
import { instrumentedWithMetrics } from './observability.ts';
import { orSetAside, setAside } from './set-aside.ts';
import {
  aggregateBatchOf,
  imageOf,
  recordsBeforeFirstFailure,
  sequenceNumberOf,
  terminalTransitionOf,
} from './stream-aggregates.ts';
import { completeRunDeps, jobCountsUpdater, runAggregates, workflowRunDeps } from './wiring.ts';

export { terminalTransitionOf } from './stream-aggregates.ts';

const processor = new BatchProcessor(EventType.DynamoDBStreams);
/** Time the aggregates transaction may take, its conflict retries and backoff included. */
const AGGREGATES_TIME_RESERVE_MS = 5_000;

function recordHandlerFor(jobCounts: JobStatusCounts, taskRunEnds: TaskRunEndBatch) {
  return async (record: DynamoDBRecord): Promise<void> => {
    const position = { sequenceNumber: sequenceNumberOf(record), eventID: record.eventID };
    const unreadable = unreadableImageOf(record);
    if (unreadable) {
      // An image that cannot be read now never can: set it aside rather than retry it.
      setAside('completion', unreadable, position);
      return;
    }
    // Only terminal transitions change a job; the queue records only feed the aggregates.
    const run = terminalTransitionOf(record);
    if (!run) return;
    const ids = { tenantId: run.tenantId, jobId: run.jobId, runId: run.runId, attempt: run.attempt };
    await orSetAside('completion', { ...position, ...ids }, async () => {
      const change = await completeRun(completeRunDeps(jobCounts, taskRunEnds), run, Date.now());
      // DEBUG: the executor logs every run that did not succeed; this line only repeats the run's
      // end and what it did to its job (both in the tables). The keys go with the line: a child
      // logger per record cost more CPU than the record's own work.
      logger.debug('run completed', { ...ids, status: run.status, change });
    });
  };
}

/**
 * Why a record's images cannot be read as a run, or undefined when they can. A number beyond what
 * a JS number holds either fails to unmarshall or comes back as a BigInt, which every later sum,
 * comparison or Date would throw on: both are the record's own, for good.
 */
function unreadableImageOf(record: DynamoDBRecord): Error | undefined {
  try {
    for (const which of ['OldImage', 'NewImage'] as const) {
      if (holdsBigInt(imageOf(record, which))) return new RangeError(`the ${which} holds a number beyond a JS number`);
    }
    return undefined;
  } catch (error) {
    return error as Error;
  }
}

function holdsBigInt(value: unknown): boolean {
  if (typeof value === 'bigint') return true;
  return value !== null && typeof value === 'object' && Object.values(value).some(holdsBigInt);
}

/**
 * Completes the batch's runs, then adds the records before the first failure to the aggregates
 * (stream-aggregates.ts says why exactly those). When the aggregates cannot be written, the whole
 * batch is reported failed from its first record instead of failing the invocation: Lambda then
 * redelivers it from that same first record, which the count-once marker recognizes, where a
 * function error would bisect it into halves the marker could not.
 */
export async function complete(event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> {
  // The jobs this batch finished move the tenants' job-status counters once per tenant, at the end.
  const jobCounts = jobCountBatch(jobCountsUpdater());
  // The ends of one workflow run's tasks in this batch go in one change (task-run-end-batch.ts).
  const taskRunEnds = new TaskRunEndBatch(workflowRunDeps(), Date.now);
  const response = await processPartialResponse(event, recordHandlerFor(jobCounts.counts, taskRunEnds), processor, {
    context,
  });
  await jobCounts.flush();
  const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
  // A record set aside as unreadable is not counted: its images cannot be (and must not stop the rest).
  const counted = recordsBeforeFirstFailure(event.Records, failed).filter((record) => !unreadableImageOf(record));
  if (counted.length === 0) return response;
  const redeliverAll = {
    batchItemFailures: [{ itemIdentifier: sequenceNumberOf(event.Records[0] as DynamoDBRecord) }],
  };
  // A transaction that commits as the invocation times out would be a function error, and the
  // bisected redelivery would count the second half again: start it only with time to finish.
  if (context.getRemainingTimeInMillis() < AGGREGATES_TIME_RESERVE_MS) {
    logger.warn('no time left to write the monitoring aggregates; the batch will be redelivered');
    return redeliverAll;
  }
  try {
    await runAggregates().add(aggregateBatchOf(event.Records, counted, Date.now()));
    return response;
  } catch (error) {
    if (isOwnFailure(error)) {
      // What these records add can never be stored: redelivering would only stop the shard. The
      // job changes are made; only their monitoring counts are lost, and that is logged and counted.
      setAside('completion aggregates', error, { firstEventID: event.Records[0]?.eventID, records: counted.length });
      return response;
    }
    logger.error('monitoring aggregates not written; the batch will be redelivered', { error: error as Error });
    return redeliverAll;
  }
}

export const handler = instrumentedWithMetrics(complete);
