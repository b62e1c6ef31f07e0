/**
 * Reads one range of a DynamoDB stream shard back, by sequence number: an iterator at the range's
 * first record, then pages until a record past its last (or the shard's end). DynamoDB Streams
 * keeps records 24 hours; a range whose start is older (TrimmedDataAccessException) or whose shard
 * is gone (ResourceNotFoundException) is reported `gone`, not thrown: nothing can bring it back.
 */
import {
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  ResourceNotFoundException,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import type { FailedStreamBatch, StreamRangeRead } from '#core/use-cases/stream-failures';
import { toDynamoDbRecord } from './stream-records.ts';

/** GetRecords pages read for one range at most: a batch holds at most 10 000 records, 1 000 a page. */
const MAX_PAGES = 20;
/** Empty pages of a shard still open before giving up on reaching the range's end. */
const MAX_EMPTY_PAGES = 3;

export async function readStreamRange(
  client: DynamoDBStreamsClient,
  range: FailedStreamBatch,
  region: string,
): Promise<StreamRangeRead<DynamoDBRecord>> {
  const end = BigInt(range.endSequenceNumber);
  const records: DynamoDBRecord[] = [];
  try {
    let { ShardIterator: iterator } = await client.send(
      new GetShardIteratorCommand({
        StreamArn: range.streamArn,
        ShardId: range.shardId,
        ShardIteratorType: 'AT_SEQUENCE_NUMBER',
        SequenceNumber: range.startSequenceNumber,
      }),
    );
    let emptyPages = 0;
    for (let page = 0; iterator && page < MAX_PAGES && emptyPages < MAX_EMPTY_PAGES; page++) {
      const result = await client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      const found = result.Records ?? [];
      emptyPages = found.length === 0 ? emptyPages + 1 : 0;
      for (const record of found) {
        if (BigInt(record.dynamodb?.SequenceNumber ?? '0') > end) return { kind: 'read', records };
        records.push(toDynamoDbRecord(record, range.streamArn, region));
      }
      iterator = result.NextShardIterator;
    }
    return { kind: 'read', records };
  } catch (error) {
    if (error instanceof TrimmedDataAccessException || error instanceof ResourceNotFoundException) {
      return { kind: 'gone' };
    }
    throw error;
  }
}
