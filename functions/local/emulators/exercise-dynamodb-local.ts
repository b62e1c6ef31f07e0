/**
 * The kinds of request a run of Chronos makes of DynamoDB Local, once each, on a table of its own:
 * the training start of the class-data archive (class-data-archive.ts) makes them so that the
 * classes that serve them are archived with those of the start, and load from the archive after.
 */
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './local-clients.ts';

const TABLE = 'class-data-training';

export async function exerciseDynamoDbLocal(endpoint: string): Promise<void> {
  const config = { endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 };
  const dynamodb = new DynamoDBClient(config);
  const streams = new DynamoDBStreamsClient(config);
  try {
    const created = await dynamodb.send(
      new CreateTableCommand({
        TableName: TABLE,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
          { AttributeName: 'due', AttributeType: 'N' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: 'due-index',
            KeySchema: [
              { AttributeName: 'pk', KeyType: 'HASH' },
              { AttributeName: 'due', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'KEYS_ONLY' },
          },
        ],
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      }),
    );
    const key = { pk: { S: 'tenant' }, sk: { S: 'job' } };
    await dynamodb.send(
      new PutItemCommand({
        TableName: TABLE,
        Item: { ...key, due: { N: '1' }, status: { S: 'QUEUED' } },
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    await dynamodb.send(
      new UpdateItemCommand({
        TableName: TABLE,
        Key: key,
        UpdateExpression: 'SET #status = :running ADD attempts :one REMOVE due',
        ConditionExpression: '#status = :queued',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':running': { S: 'RUNNING' }, ':queued': { S: 'QUEUED' }, ':one': { N: '1' } },
        ReturnValues: 'ALL_NEW',
      }),
    );
    await dynamodb.send(
      new QueryCommand({
        TableName: TABLE,
        IndexName: 'due-index',
        KeyConditionExpression: 'pk = :pk AND due <= :now',
        ExpressionAttributeValues: { ':pk': { S: 'tenant' }, ':now': { N: '2' } },
      }),
    );
    await dynamodb.send(new ScanCommand({ TableName: TABLE, Limit: 10 }));
    await dynamodb.send(new BatchGetItemCommand({ RequestItems: { [TABLE]: { Keys: [key] } } }));
    await dynamodb.send(
      new BatchWriteItemCommand({
        RequestItems: { [TABLE]: [{ PutRequest: { Item: { pk: { S: 'tenant' }, sk: { S: 'other' } } } }] },
      }),
    );
    await dynamodb.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName: TABLE, Item: { pk: { S: 'tenant' }, sk: { S: 'third' } } } },
          { Delete: { TableName: TABLE, Key: { pk: { S: 'tenant' }, sk: { S: 'other' } } } },
        ],
      }),
    );
    await dynamodb.send(new DescribeTableCommand({ TableName: TABLE }));
    const streamArn = created.TableDescription?.LatestStreamArn;
    if (streamArn) {
      const stream = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
      const shardId = stream.StreamDescription?.Shards?.[0]?.ShardId;
      if (shardId) {
        const iterator = await streams.send(
          new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' }),
        );
        await streams.send(new GetRecordsCommand({ ShardIterator: iterator.ShardIterator }));
      }
    }
    await dynamodb.send(new DeleteTableCommand({ TableName: TABLE }));
  } finally {
    dynamodb.destroy();
    streams.destroy();
  }
}
