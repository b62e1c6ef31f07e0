/**
 * The completion handler: the runs table's stream, filtered to transitions into a terminal state
 * (see completion-filter.ts), drives what happens to the job next.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { sampleOf } from '#core/metrics/run-sample';
import type { Run } from '#core/model';
import { isTerminal } from '#core/run-state';
import { type CompletedRun, completeRun } from '#core/use-cases/complete-run';
import { logger } from './logger.ts';
import { instrumented } from './observability.ts';
import {
  httpInvoker,
  jobCountsUpdater,
  jobRepository,
  runAggregates,
  runDispatcher,
  runRepository,
  schedulingConfig,
} from './wiring.ts';

const processor = new BatchProcessor(EventType.DynamoDBStreams);

function imageOf(record: DynamoDBRecord, which: 'NewImage' | 'OldImage'): Run | undefined {
  const image = record.dynamodb?.[which];
  return image ? (unmarshall(image as Record<string, AttributeValue>) as Run) : undefined;
}

/** The run that just became terminal, or undefined for any other change (the filter's backstop). */
export function terminalTransitionOf(record: DynamoDBRecord): CompletedRun | undefined {
  const after = imageOf(record, 'NewImage');
  const before = imageOf(record, 'OldImage');
  if (!after || !isTerminal(after.status) || (before && isTerminal(before.status))) return undefined;
  return { ...after, status: after.status };
}

async function recordHandler(record: DynamoDBRecord): Promise<void> {
  const run = terminalTransitionOf(record);
  if (!run) return;
  const change = await completeRun(
    {
      jobs: jobRepository(),
      runs: runRepository(),
      dispatcher: runDispatcher(),
      invoker: httpInvoker(),
      config: schedulingConfig(),
      jobCounts: jobCountsUpdater(),
    },
    run,
    Date.now(),
  );
  const ids = { tenantId: run.tenantId, jobId: run.jobId, runId: run.runId, attempt: run.attempt };
  logger.createChild({ persistentKeys: ids }).info('run completed', { status: run.status, change });
}

/**
 * Adds the batch's finished runs to the monitoring aggregates, after their completion was applied.
 * Records that failed are left out (they come back and are counted then); a failure here fails
 * the batch, which is safe to replay: completion and counting are both idempotent.
 */
async function aggregate(records: DynamoDBRecord[], failed: Set<string>): Promise<void> {
  const now = Date.now();
  const samples = records
    .filter((record) => !failed.has(record.dynamodb?.SequenceNumber ?? ''))
    .flatMap((record) => {
      const run = terminalTransitionOf(record);
      return run ? [sampleOf(run, now)] : [];
    });
  if (samples.length > 0) await runAggregates().add(samples);
}

export async function complete(event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> {
  const response = await processPartialResponse(event, recordHandler, processor, { context });
  await aggregate(event.Records, new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier)));
  return response;
}

export const handler = instrumented(complete);
