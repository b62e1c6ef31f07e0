/**
 * The notifier: consumes the failure-notice queue and calls each notice's onFailure URL (signed,
 * through the guarded invoker), away from the completion stream, so a slow or hanging endpoint
 * delays only its own notices. Records are processed in parallel and failures reported per item.
 * A notice the endpoint did not take is hidden for a growing backoff (10 s, 40 s, 160 s... at most
 * 15 min) and comes back; after the queue's receive limit it moves to the dead-letter queue, which
 * is alarmed. A record that is not a notice is set aside at once.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { systemClock } from '#adapters/system-clock';
import { deliverFailureNotice } from '#core/use-cases/deliver-failure-notice';
import { MalformedNoticeError, parseFailureNotice } from './failure-notice-message.ts';
import { logger } from './logger.ts';
import { instrumentedWithMetrics } from './observability.ts';
import { redeliveryBackoffSeconds } from './redelivery-backoff.ts';
import { receiveCountOf } from './run-metrics.ts';
import { readOrSetAside } from './set-aside.ts';
import { failureNotices, httpInvoker, jobRepository, notifierConfig, signingKeys } from './wiring.ts';

const processor = new BatchProcessor(EventType.SQS);
async function recordHandler(record: SQSRecord): Promise<void> {
  const notice = readOrSetAside(
    'notifier',
    record,
    () => parseFailureNotice(record),
    (error) => error instanceof MalformedNoticeError,
  );
  if (!notice) return;
  const keys = { tenantId: notice.tenantId, jobId: notice.jobId, runId: notice.runId, attempt: notice.attempt };
  const config = notifierConfig();
  try {
    const result = await deliverFailureNotice(
      {
        jobs: jobRepository(),
        invoker: httpInvoker(),
        signingKeys: signingKeys(),
        clock: systemClock,
        config: { timeoutMs: config.timeoutMs },
      },
      notice,
    );
    logger.info(`failure notice ${result.kind}`, { ...keys, ...result });
  } catch (error) {
    const receives = receiveCountOf(record) ?? 1;
    const seconds = redeliveryBackoffSeconds(receives, config.backoffSeconds);
    // Best effort: should the change fail, the notice comes back after the queue's visibility timeout.
    await failureNotices()
      .comeBackIn(record.receiptHandle, seconds)
      .catch((changeError: unknown) =>
        logger.warn('failure notice backoff not set', { ...keys, error: changeError as Error }),
      );
    logger.warn('failure notice not delivered; it comes back later', {
      ...keys,
      receives,
      comeBackInSeconds: seconds,
      error: error as Error,
    });
    throw error;
  }
}

export async function notify(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  return processPartialResponse(event, recordHandler, processor, { context });
}

export const handler = instrumentedWithMetrics(notify);
