/**
 * The notifier's queue: one message per failure notice, sent by the completion handler and
 * consumed by the notifier (handlers/notifier.ts). Its redrive policy is the notices' dead-letter
 * path; the notifier hides a failed notice for a growing backoff before it comes back.
 */
import { ChangeMessageVisibilityCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { FailureNotice, FailureNotices } from '#core/notifications/failure-notice';

export class SqsFailureNotices implements FailureNotices {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(notice: FailureNotice): Promise<void> {
    await this.client.send(new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify(notice) }));
  }

  /** Keeps a received notice hidden for `seconds` more: it comes back then (its backoff). */
  async comeBackIn(receiptHandle: string, seconds: number): Promise<void> {
    await this.client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: this.queueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: seconds,
      }),
    );
  }
}
