/**
 * Sends runs to their lane's dispatch queue (lane-queues.ts: the message's `priority`, absent
 * `normal`) in SendMessageBatch calls of ten per lane, each with its own DelaySeconds. Entries SQS rejects are retried once; anything still rejected fails the call.
 * Callers send runs already stored in the sweep index (runs/send-runs.ts), so a failed call is
 * reported through `onUnsent` (a log line) and the runs are left to the scanner's sweep.
 */
import { SendMessageBatchCommand, type SendMessageBatchRequestEntry, type SQSClient } from '@aws-sdk/client-sqs';
import { dispatchDelaySeconds } from '#core/dispatch-delay';
import type { DispatchRequest, RunDispatcher } from '#core/ports';
import { PRIORITIES } from '#core/priority';
import type { ReleaseSpread } from '#core/release-spread';
import { type LaneQueueUrls, laneOfMessage } from './lane-queues.ts';

export interface SqsRunDispatcherOptions {
  now?: () => number;
  /** Hears of runs a failed send left to the sweep. */
  onUnsent?: (messages: DispatchRequest[], error: unknown) => void;
  /** Releases future runs early, a burst spread over the seconds before it (unset: in the second before). */
  spread?: ReleaseSpread;
}

const BATCH_SIZE = 10;

export class SqsRunDispatcher implements RunDispatcher {
  private readonly queues: LaneQueueUrls;

  /** `queues`: each lane's queue URL, or one URL that every lane shares (a single-queue setup, tests). */
  constructor(
    private readonly client: SQSClient,
    queues: LaneQueueUrls | string,
    private readonly options: SqsRunDispatcherOptions = {},
  ) {
    this.queues = typeof queues === 'string' ? { high: queues, normal: queues, low: queues } : queues;
  }

  unsent(messages: DispatchRequest[], error: unknown): void {
    this.options.onUnsent?.(messages, error);
  }

  async dispatch(messages: DispatchRequest[]): Promise<void> {
    const batches: Array<{ queueUrl: string; batch: DispatchRequest[] }> = [];
    for (const lane of PRIORITIES) {
      const ofLane = messages.filter(({ message }) => laneOfMessage(message) === lane);
      for (let i = 0; i < ofLane.length; i += BATCH_SIZE) {
        batches.push({ queueUrl: this.queues[lane], batch: ofLane.slice(i, i + BATCH_SIZE) });
      }
    }
    // Every batch is tried, whatever another lane's did: one refused send never holds the rest back.
    const sent = await Promise.allSettled(batches.map(({ queueUrl, batch }) => this.sendWithOneRetry(queueUrl, batch)));
    const failed = sent.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private async sendWithOneRetry(queueUrl: string, batch: DispatchRequest[]): Promise<void> {
    // The delay is taken right before the send: a pass that spent seconds planning must not push
    // its runs' release past their due second.
    const sentAt = (this.options.now ?? Date.now)();
    let pending: SendMessageBatchRequestEntry[] = batch.map(({ message, releaseAt }, index) => ({
      Id: String(index),
      MessageBody: JSON.stringify(message),
      DelaySeconds: dispatchDelaySeconds(releaseAt - (this.options.spread?.leadMs(releaseAt, sentAt) ?? 0), sentAt),
    }));
    for (let attempt = 1; attempt <= 2 && pending.length > 0; attempt++) {
      const { Failed = [] } = await this.client.send(
        new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: pending }),
      );
      const failedIds = new Set(Failed.map((f) => f.Id));
      if (attempt === 2 && Failed.length > 0) {
        const reasons = Failed.map((f) => `${f.Code}: ${f.Message}`).join('; ');
        throw new Error(`SQS rejected ${Failed.length} dispatch message(s): ${reasons}`);
      }
      pending = pending.filter((entry) => failedIds.has(entry.Id));
    }
  }
}
