/** Depth and age of a queue, from SQS's own (approximate) queue attributes. */
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';

export interface QueueStats {
  /** Released and waiting for a consumer (ApproximateNumberOfMessages). */
  visible: number;
  /** Received and not yet deleted: being processed (ApproximateNumberOfMessagesNotVisible). */
  inFlight: number;
  /** Sent with a delay that has not passed (ApproximateNumberOfMessagesDelayed). */
  delayed: number;
}

/** Reads the counts of one queue. */
export async function queueStats(client: SQSClient, queueUrl: string): Promise<QueueStats> {
  const { Attributes = {} } = await client.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  const count = (name: string) => Number(Attributes[name as keyof typeof Attributes] ?? 0) || 0;
  return {
    visible: count('ApproximateNumberOfMessages'),
    inFlight: count('ApproximateNumberOfMessagesNotVisible'),
    delayed: count('ApproximateNumberOfMessagesDelayed'),
  };
}
