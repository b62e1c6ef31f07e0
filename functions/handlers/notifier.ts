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
import type { FailureNotice } from '#core/notifications/failure-notice';
import { deliverFailureNotice } from '#core/use-cases/deliver-failure-notice';
import { MalformedNoticeError, parseFailureNotice } from './failure-notice-message.ts';
import { logger } from './logger.ts';
import { instrumentedWithMetrics } from './observability.ts';
import { receiveCountOf } from './run-metrics.ts';
import { setAside } from './set-aside.ts';
import { failureNotices, httpInvoker, jobRepository, notifierConfig, signingKeys } from './wiring.ts';

const processor = new BatchProcessor(EventType.SQS);
/** Longest backoff: an undelivered notice is tried again at least every 15 minutes until its receive limit. */
const MAX_BACKOFF_SECONDS = 900;

/** How long a notice that was not delivered stays away: `base` after its first receive, × 4 per receive after. */
export function notifierBackoffSeconds(receives: number, base: number): number {
  const previous = Math.min(Math.max(receives - 1, 0), 10);
  return Math.min(MAX_BACKOFF_SECONDS, base * 4 ** previous);
}

function readNoticeOrSetAside(record: SQSRecord): FailureNotice | undefined {
  try {
    return parseFailureNotice(record);
  } catch (error) {
    if (!(error instanceof MalformedNoticeError)) throw error;
    setAside('notifier', error, { messageId: record.messageId });
    return undefined;
  }
}

async function recordHandler(record: SQSRecord): Promise<void> {
  const notice = readNoticeOrSetAside(record);
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
    const seconds = notifierBackoffSeconds(receives, config.backoffSeconds);
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
