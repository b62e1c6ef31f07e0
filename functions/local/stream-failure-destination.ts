/**
 * Lambda's SQS on-failure destination for a stream event source mapping, locally: when the
 * completion poller gives up on a batch, the queue gets what Lambda would send, the batch's
 * coordinates (`DDBStreamBatchInfo`: shard, first and last sequence number) and not its records,
 * so the stream-failure handler reads them back from the stream exactly as it does on AWS.
 */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { StreamBatchFailure } from './stream-poller.ts';

/** The body Lambda sends (https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html, on-failure destinations). */
export function onFailureRecordOf(failure: StreamBatchFailure, streamArn: string, now = new Date()) {
  const sequences = failure.records.map((record) => record.dynamodb?.SequenceNumber ?? '0');
  const arrivals = failure.records.map((record) => record.dynamodb?.ApproximateCreationDateTime ?? 0);
  const iso = (seconds: number | undefined) => new Date((seconds ?? 0) * 1000).toISOString();
  return {
    requestContext: {
      requestId: crypto.randomUUID(),
      functionArn: 'arn:aws:lambda:local:000000000000:function:completion',
      condition: 'RetryAttemptsExhausted',
      approximateInvokeCount: failure.attempts,
    },
    responseContext: {
      statusCode: 200,
      executedVersion: '$LATEST',
      ...(failure.error === undefined ? {} : { functionError: 'Unhandled' }),
    },
    version: '1.0',
    timestamp: now.toISOString(),
    DDBStreamBatchInfo: {
      shardId: failure.shardId,
      startSequenceNumber: sequences[0],
      endSequenceNumber: sequences[sequences.length - 1],
      approximateArrivalOfFirstRecord: iso(arrivals[0]),
      approximateArrivalOfLastRecord: iso(arrivals[arrivals.length - 1]),
      batchSize: failure.records.length,
      streamArn,
    },
  };
}

/** Sends a failed batch's on-failure record to `queueUrl`. */
export async function sendStreamFailure(
  sqs: SQSClient,
  queueUrl: string,
  streamArn: string,
  failure: StreamBatchFailure,
): Promise<void> {
  if (failure.records.length === 0) return;
  await sqs.send(
    new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(onFailureRecordOf(failure, streamArn)) }),
  );
}
