/**
 * Turns DynamoDB Streams GetRecords output into the `DynamoDBRecord`s Lambda delivers: the same
 * fields, with the creation time in epoch seconds and binary attributes base64-encoded, since the
 * Lambda event is JSON.
 */
import type { _Record, AttributeValue as StreamAttributeValue } from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue, DynamoDBRecord, StreamRecord } from 'aws-lambda';

/**
 * Converts one stream record; `eventSourceARN` is the stream's ARN and `awsRegion` the function's
 * region, as in Lambda events (DynamoDB Local reports its own region, `ddblocal`).
 */
export function toDynamoDbRecord(record: _Record, streamArn: string, region: string): DynamoDBRecord {
  const source = record.dynamodb ?? {};
  const dynamodb: StreamRecord = {};
  if (source.ApproximateCreationDateTime) {
    dynamodb.ApproximateCreationDateTime = Math.floor(source.ApproximateCreationDateTime.getTime() / 1000);
  }
  if (source.Keys) dynamodb.Keys = toImage(source.Keys);
  if (source.NewImage) dynamodb.NewImage = toImage(source.NewImage);
  if (source.OldImage) dynamodb.OldImage = toImage(source.OldImage);
  if (source.SequenceNumber !== undefined) dynamodb.SequenceNumber = source.SequenceNumber;
  if (source.SizeBytes !== undefined) dynamodb.SizeBytes = source.SizeBytes;
  if (source.StreamViewType !== undefined) dynamodb.StreamViewType = source.StreamViewType;
  const converted: DynamoDBRecord = {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: region,
    dynamodb,
    eventSourceARN: streamArn,
  };
  // Present only for TTL deletions, where it tells the service (not a user) removed the item.
  if (record.userIdentity) converted.userIdentity = { ...record.userIdentity };
  return converted;
}

function toImage(image: Record<string, StreamAttributeValue>): Record<string, AttributeValue> {
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, toAttributeValue(value)]));
}

function toAttributeValue(value: StreamAttributeValue): AttributeValue {
  const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
  if (value.S !== undefined) return { S: value.S };
  if (value.N !== undefined) return { N: value.N };
  if (value.BOOL !== undefined) return { BOOL: value.BOOL };
  if (value.NULL !== undefined) return { NULL: value.NULL };
  if (value.B !== undefined) return { B: base64(value.B) };
  if (value.SS !== undefined) return { SS: value.SS };
  if (value.NS !== undefined) return { NS: value.NS };
  if (value.BS !== undefined) return { BS: value.BS.map(base64) };
  if (value.L !== undefined) return { L: value.L.map(toAttributeValue) };
  if (value.M !== undefined) return { M: toImage(value.M) };
  throw new Error(`Unknown attribute value type: ${Object.keys(value).join(',')}`);
}
