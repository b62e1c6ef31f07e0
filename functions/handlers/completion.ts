/**
 * The completion handler: the runs table's stream, filtered to transitions into a terminal state
 * (see completion-filter.ts), drives what happens to the job next.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import middy from '@middy/core';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { Run } from '#core/model';
import { isTerminal } from '#core/run-state';
import { type CompletedRun, completeRun } from '#core/use-cases/complete-run';
import { logger } from './logger.ts';
import { httpInvoker, jobRepository, runDispatcher, runRepository, schedulingConfig } from './wiring.ts';

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
    },
    run,
    Date.now(),
  );
  logger.info('run completed', {
    tenantId: run.tenantId,
    jobId: run.jobId,
    runId: run.runId,
    attempt: run.attempt,
    status: run.status,
    change,
  });
}

export async function complete(event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> {
  return processPartialResponse(event, recordHandler, processor, { context });
}

export const handler = middy(complete).use(injectLambdaContext(logger));
