/** Turns ReceiveMessage output into the `SQSRecord`s Lambda's SQS event source mapping delivers. */
import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { SQSMessageAttributes, SQSRecord, SQSRecordAttributes } from 'aws-lambda';

/** One record per message, with Lambda's field names and string/base64 encodings. */
export function toSqsRecord(message: Message, queueArn: string, region: string): SQSRecord {
  const attributes = (message.Attributes ?? {}) as Record<string, string>;
  const record: SQSRecord = {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ...attributes,
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? '',
      SenderId: attributes.SenderId ?? '',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? '',
    } as SQSRecordAttributes,
    messageAttributes: toMessageAttributes(message.MessageAttributes ?? {}),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
  if (message.MD5OfMessageAttributes) record.md5OfMessageAttributes = message.MD5OfMessageAttributes;
  return record;
}

function toMessageAttributes(attributes: Record<string, MessageAttributeValue>): SQSMessageAttributes {
  const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
  return Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [
      name,
      {
        dataType: value.DataType ?? 'String',
        ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
        ...(value.BinaryValue !== undefined ? { binaryValue: base64(value.BinaryValue) } : {}),
        stringListValues: value.StringListValues ?? [],
        binaryListValues: (value.BinaryListValues ?? []).map(base64),
      },
    ]),
  );
}
