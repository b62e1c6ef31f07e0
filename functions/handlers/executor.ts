/**
 * The executor: consumes the dispatch queue in batches, one record per run. Records are processed
 * in parallel and failures are reported per item, so one slow or failing target never holds up or
 * replays the others.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { systemClock } from '#adapters/system-clock';
import { executeRun, RunBusyError } from '#core/use-cases/execute-run';
import { parseDispatchMessage } from './dispatch-message.ts';
import { logger } from './logger.ts';
import { addRunMetric, instrumentedWithMetrics, MetricUnit } from './observability.ts';
import { deliveryTimingOf, RUN_METRICS, recordCallMetrics } from './run-metrics.ts';
import { patientRunSlots, runCapOf, sendBackLater } from './tenant-run-cap.ts';
import {
  httpInvoker,
  jobRepository,
  leaseMarginMs,
  runRepository,
  runSlots,
  secretCipher,
  signingKeys,
} from './wiring.ts';

const processor = new BatchProcessor(EventType.SQS);

function recordHandlerFor(owner: string) {
  return async (record: SQSRecord) => {
    const message = parseDispatchMessage(record);
    const ids = { tenantId: message.tenantId, jobId: message.jobId, runId: message.runId, attempt: message.attempt };
    // Records run in parallel: each gets its own child logger, so keys never leak between runs.
    const log = logger.createChild({ persistentKeys: ids });
    const result = await executeRun(
      {
        jobs: jobRepository(),
        runs: runRepository(),
        invoker: httpInvoker(),
        signingKeys: signingKeys(),
        clock: systemClock,
        random: Math.random,
        config: { leaseMarginMs: leaseMarginMs(), owner },
        slots: { slots: patientRunSlots(runSlots()), capOf: runCapOf },
        secrets: secretCipher(),
      },
      message,
      deliveryTimingOf(record),
    );
    if (result.kind === 'leased-elsewhere') throw new RunBusyError(message.runId);
    if (result.kind === 'throttled') {
      // The tenant is at its in-flight cap: back to the queue for a second or two.
      await sendBackLater(message);
      log.debug('run deferred: tenant at its in-flight cap');
      return;
    }
    if (result.kind === 'called') {
      recordCallMetrics(result.run, result.outcome);
      log.info('run finished', {
        status: result.outcome.status,
        httpStatus: result.outcome.httpStatus,
        durationMs: result.outcome.durationMs,
      });
    } else {
      if (result.kind === 'skipped') addRunMetric(RUN_METRICS.skipped, MetricUnit.Count, 1, message.tenantId);
      if (result.kind === 'lost') addRunMetric(RUN_METRICS.failed, MetricUnit.Count, 1, message.tenantId);
      log.info(`run not called: ${result.kind}`);
    }
  };
}

export async function execute(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  return processPartialResponse(event, recordHandlerFor(context.awsRequestId), processor, { context });
}

export const handler = instrumentedWithMetrics(execute);
