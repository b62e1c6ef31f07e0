/**
 * The executor: consumes the dispatch queue in batches, one record per run. Records are processed
 * in parallel and failures are reported per item, so one slow or failing target never holds up or
 * replays the others.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { systemClock } from '#adapters/system-clock';
import { executeRun, RunBusyError } from '#core/use-cases/execute-run';
import { parseDispatchMessage } from './dispatch-message.ts';
import { logger } from './logger.ts';
import { httpInvoker, jobRepository, leaseMarginMs, runRepository, signingKeys } from './wiring.ts';

const processor = new BatchProcessor(EventType.SQS);

function recordHandlerFor(owner: string) {
  return async (record: SQSRecord) => {
    const message = parseDispatchMessage(record);
    const ids = { tenantId: message.tenantId, jobId: message.jobId, runId: message.runId, attempt: message.attempt };
    const result = await executeRun(
      {
        jobs: jobRepository(),
        runs: runRepository(),
        invoker: httpInvoker(),
        signingKeys: signingKeys(),
        clock: systemClock,
        random: Math.random,
        config: { leaseMarginMs: leaseMarginMs(), owner },
      },
      message,
    );
    if (result.kind === 'leased-elsewhere') throw new RunBusyError(message.runId);
    if (result.kind === 'called') {
      logger.info('run finished', {
        ...ids,
        status: result.outcome.status,
        httpStatus: result.outcome.httpStatus,
        durationMs: result.outcome.durationMs,
      });
    } else {
      logger.info(`run not called: ${result.kind}`, ids);
    }
  };
}

export async function execute(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  return processPartialResponse(event, recordHandlerFor(context.awsRequestId), processor, { context });
}

export const handler = middy(execute).use(injectLambdaContext(logger));
