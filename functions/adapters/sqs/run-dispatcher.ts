/**
 * Sends runs to the dispatch queue in SendMessageBatch calls of ten, each with its own
 * DelaySeconds. Entries SQS rejects are retried once; anything still rejected fails the call, so
 * the caller (scanner or API) errors out and the job stays due instead of being silently dropped.
 */
import { SendMessageBatchCommand, type SendMessageBatchRequestEntry, type SQSClient } from '@aws-sdk/client-sqs';
import type { DispatchMessage } from '#core/model';
import type { RunDispatcher } from '#core/ports';

const BATCH_SIZE = 10;

export class SqsRunDispatcher implements RunDispatcher {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async dispatch(messages: Array<{ message: DispatchMessage; delaySeconds: number }>): Promise<void> {
    const entries: SendMessageBatchRequestEntry[] = messages.map(({ message, delaySeconds }, index) => ({
      Id: String(index),
      MessageBody: JSON.stringify(message),
      DelaySeconds: delaySeconds,
    }));
    const batches: SendMessageBatchRequestEntry[][] = [];
    for (let i = 0; i < entries.length; i += BATCH_SIZE) batches.push(entries.slice(i, i + BATCH_SIZE));
    await Promise.all(batches.map((batch) => this.sendWithOneRetry(batch)));
  }

  private async sendWithOneRetry(batch: SendMessageBatchRequestEntry[]): Promise<void> {
    let pending = batch;
    for (let attempt = 1; attempt <= 2 && pending.length > 0; attempt++) {
      const { Failed = [] } = await this.client.send(
        new SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: pending }),
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
