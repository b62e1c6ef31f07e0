/**
 * The dead-letter handler: consumes the dispatch queue's DLQ, where SQS moves a message after
 * maxReceiveCount failed receives, and ends its run as DEAD_LETTERED with the reason, so every
 * run still ends visibly (and the completion handler finishes the job).
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { recordDeadLetter } from '#core/use-cases/dead-letters';
import { parseDispatchMessage } from './dispatch-message.ts';
import { logger } from './logger.ts';
import { addRunMetric, instrumentedWithMetrics, MetricUnit } from './observability.ts';
import { RUN_METRICS, receiveCountOf } from './run-metrics.ts';
import { orSetAside, setAside } from './set-aside.ts';
import { runRepository } from './wiring.ts';

const processor = new BatchProcessor(EventType.SQS);

async function recordHandler(record: SQSRecord): Promise<void> {
  let message: ReturnType<typeof parseDispatchMessage>;
  try {
    message = parseDispatchMessage(record);
  } catch (error) {
    // Not a Chronos message: nothing to record, and retrying cannot help. Keep it visible in the log.
    setAside('dead-letter', error, { messageId: record.messageId, unreadable: true });
    return;
  }
  const receives = receiveCountOf(record) ?? 0;
  const ids = { tenantId: message.tenantId, jobId: message.jobId, runId: message.runId, attempt: message.attempt };
  // A message whose run can never be recorded (the store refuses its key) is set aside, not
  // returned to the queue to fail again; a transient failure is retried through the partial batch.
  await orSetAside('dead-letter', { messageId: record.messageId, ...ids }, async () => {
    const recorded = await recordDeadLetter(runRepository(), message, receives, Date.now());
    if (recorded) addRunMetric(RUN_METRICS.deadLettered, MetricUnit.Count, 1, message.tenantId);
    logger
      .createChild({ persistentKeys: ids })
      .warn(recorded ? 'run dead-lettered' : 'dead letter for a run that had already ended');
  });
}

export async function handleDeadLetters(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  return processPartialResponse(event, recordHandler, processor, { context });
}

export const handler = instrumentedWithMetrics(handleDeadLetters);
