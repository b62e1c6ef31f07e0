import { describe, expect, it } from 'vitest';
import { authorizationRequests, type ResourceArns } from '#local/aws-fidelity/aws-requests';

const arns: ResourceArns = {
  table: (name) => `arn:table/${name}`,
  queueOfUrl: (url) => `arn:queue/${url.split('/').pop()}`,
  queueOfName: (name) => `arn:queue/${name}`,
};
const pairs = (
  service: 'DynamoDB' | 'DynamoDBStreams' | 'SQS' | 'CloudWatch',
  command: string,
  input: Record<string, unknown>,
) => authorizationRequests(service, command, input, arns).map((r) => `${r.action} ${r.resource}`);

describe('what IAM checks for a command', () => {
  it('names the table, or its index, of a single-table DynamoDB call', () => {
    expect(pairs('DynamoDB', 'UpdateItemCommand', { TableName: 'runs' })).toEqual([
      'dynamodb:UpdateItem arn:table/runs',
    ]);
    expect(pairs('DynamoDB', 'QueryCommand', { TableName: 'runs', IndexName: 'byJob' })).toEqual([
      'dynamodb:Query arn:table/runs/index/byJob',
    ]);
  });

  it('names the stream a DynamoDB Streams call reads, for GetRecords from its shard iterator', () => {
    const stream = 'arn:aws:dynamodb:ddblocal:000000000000:table/runs/stream/2026-11-24T15:39:19.691';
    expect(pairs('DynamoDBStreams', 'GetShardIteratorCommand', { StreamArn: stream, ShardId: 's' })).toEqual([
      `dynamodb:GetShardIterator ${stream}`,
    ]);
    expect(pairs('DynamoDBStreams', 'GetRecordsCommand', { ShardIterator: `${stream}|001|c2hhcmQ=` })).toEqual([
      `dynamodb:GetRecords ${stream}`,
    ]);
    // An iterator that names no stream matches no stream grant.
    expect(pairs('DynamoDBStreams', 'GetRecordsCommand', { ShardIterator: 'opaque' })).toEqual([
      'dynamodb:GetRecords *',
    ]);
  });

  it('checks batches per table and transactions per item kind and table', () => {
    expect(pairs('DynamoDB', 'BatchGetItemCommand', { RequestItems: { jobs: {}, runs: {} } })).toEqual([
      'dynamodb:BatchGetItem arn:table/jobs',
      'dynamodb:BatchGetItem arn:table/runs',
    ]);
    const transact = {
      TransactItems: [
        { ConditionCheck: { TableName: 'tenants' } },
        { Put: { TableName: 'jobs' } },
        { Update: { TableName: 'tenants' } },
        { Delete: { TableName: 'jobs' } },
      ],
    };
    expect(pairs('DynamoDB', 'TransactWriteItemsCommand', transact)).toEqual([
      'dynamodb:ConditionCheckItem arn:table/tenants',
      'dynamodb:PutItem arn:table/jobs',
      'dynamodb:UpdateItem arn:table/tenants',
      'dynamodb:DeleteItem arn:table/jobs',
    ]);
  });

  it('gives a projecting read its Select and top-level attributes, with #names resolved', () => {
    const [scan] = authorizationRequests(
      'DynamoDB',
      'ScanCommand',
      {
        TableName: 't',
        Select: 'SPECIFIC_ATTRIBUTES',
        ProjectionExpression: '#pk, sk, a.b, c[0]',
        ExpressionAttributeNames: { '#pk': 'pk' },
      },
      arns,
    );
    expect(scan?.context).toEqual({
      'dynamodb:Select': 'SPECIFIC_ATTRIBUTES',
      'dynamodb:Attributes': ['pk', 'sk', 'a', 'c'],
    });
  });

  it('authorizes SQS batches with the single-message action, on the queue of the URL', () => {
    const url = 'http://localhost:1/000000000000/chronos-local-dispatch';
    expect(pairs('SQS', 'SendMessageBatchCommand', { QueueUrl: url })).toEqual([
      'sqs:SendMessage arn:queue/chronos-local-dispatch',
    ]);
    expect(pairs('SQS', 'DeleteMessageBatchCommand', { QueueUrl: url })).toEqual([
      'sqs:DeleteMessage arn:queue/chronos-local-dispatch',
    ]);
    expect(pairs('SQS', 'GetQueueUrlCommand', { QueueName: 'q' })).toEqual(['sqs:GetQueueUrl arn:queue/q']);
  });

  it("checks CloudWatch's metric reads on '*' (they take no resource)", () => {
    expect(pairs('CloudWatch', 'GetMetricDataCommand', {})).toEqual(['cloudwatch:GetMetricData *']);
  });
});
