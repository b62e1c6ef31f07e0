import { CreateTableCommand, DescribeTableCommand, DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOBS_TABLE, RUNS_TABLE, WORKFLOW_RUNS_TABLE } from '#adapters/dynamodb/table-definitions';
import { secondaryIndexes } from '#adapters/dynamodb/table-indexes';
import { type RunningEmulator, startDynamoDbLocal } from '#local/emulators/dynamodb-local';
import { startSqsEmulator } from '#local/emulators/fauxqs';
import { createLocalClients, type LocalClients } from '#local/emulators/local-clients';
import { type ProvisionedResources, provisionLocalResources } from '#local/provision';

const byName = (a: { IndexName?: string }, b: { IndexName?: string }) =>
  (a.IndexName ?? '').localeCompare(b.IndexName ?? '');

describe('provisionLocalResources', () => {
  let dynamo: RunningEmulator;
  let sqsEmulator: RunningEmulator;
  let clients: LocalClients;
  let resources: ProvisionedResources;

  beforeAll(async () => {
    [dynamo, sqsEmulator] = await Promise.all([startDynamoDbLocal(), startSqsEmulator()]);
    clients = createLocalClients({ dynamodb: dynamo.endpoint, sqs: sqsEmulator.endpoint });
    resources = await provisionLocalResources({
      dynamodb: clients.dynamodb,
      sqs: clients.sqs,
      sqsEndpoint: sqsEmulator.endpoint,
      namePrefix: 'test-',
      maxReceiveCount: 3,
      visibilityTimeoutSeconds: 45,
    });
  }, 60_000);

  afterAll(async () => {
    clients?.destroy();
    await Promise.all([dynamo?.stop(), sqsEmulator?.stop()]);
  });

  it('creates the jobs table with the sparse due-index', async () => {
    const { Table } = await clients.dynamodb.send(new DescribeTableCommand({ TableName: 'test-jobs' }));
    expect(Table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
    expect(Table?.KeySchema).toEqual([
      { AttributeName: 'tenantId', KeyType: 'HASH' },
      { AttributeName: 'jobId', KeyType: 'RANGE' },
    ]);
    const index = Table?.GlobalSecondaryIndexes?.[0];
    expect(index?.IndexName).toBe('due-index');
    expect(index?.KeySchema).toEqual([
      { AttributeName: 'dueShard', KeyType: 'HASH' },
      { AttributeName: 'nextFireAt', KeyType: 'RANGE' },
    ]);
    expect(index?.Projection?.ProjectionType).toBe('INCLUDE');
    expect(index?.Projection?.NonKeyAttributes).toEqual([...JOBS_TABLE.dueIndex.projectedAttributes]);
  });

  it('creates the runs table with a NEW_AND_OLD_IMAGES stream and TTL on expiresAt', async () => {
    const { Table } = await clients.dynamodb.send(new DescribeTableCommand({ TableName: 'test-runs' }));
    expect(Table?.KeySchema?.map((k) => k.AttributeName)).toEqual(['pk', 'sk']);
    expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(resources.runsStreamArn).toBe(Table?.LatestStreamArn);
    const declared = secondaryIndexes(RUNS_TABLE).map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        ...(index.sortKey ? [{ AttributeName: index.sortKey, KeyType: 'RANGE' }] : []),
      ],
      // ALL, unless the index names what it projects (the deadline index: its run's key parts).
      Projection: index.projectedAttributes
        ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projectedAttributes] }
        : { ProjectionType: 'ALL' },
    }));
    const created = (Table?.GlobalSecondaryIndexes ?? []).map(({ IndexName, KeySchema, Projection }) => ({
      IndexName,
      KeySchema,
      Projection,
    }));
    expect(created.sort(byName)).toEqual(declared.sort(byName));
    const ttl = await clients.dynamodb.send(new DescribeTimeToLiveCommand({ TableName: 'test-runs' }));
    expect(ttl.TimeToLiveDescription).toMatchObject({ AttributeName: 'expiresAt', TimeToLiveStatus: 'ENABLED' });
  });

  it('creates the workflow-runs table keyed by pk and sk, with TTL on expiresAt, no stream and no index', async () => {
    expect(resources.tables.workflowRuns).toBe('test-workflow-runs');
    const { Table } = await clients.dynamodb.send(new DescribeTableCommand({ TableName: 'test-workflow-runs' }));
    expect(Table?.KeySchema).toEqual([
      { AttributeName: WORKFLOW_RUNS_TABLE.partitionKey, KeyType: 'HASH' },
      { AttributeName: WORKFLOW_RUNS_TABLE.sortKey, KeyType: 'RANGE' },
    ]);
    expect(Table?.AttributeDefinitions).toEqual([
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'sk', AttributeType: 'S' },
    ]);
    expect(Table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
    expect(Table?.StreamSpecification?.StreamEnabled ?? false).toBe(false);
    expect(Table?.GlobalSecondaryIndexes).toBeUndefined();
    const ttl = await clients.dynamodb.send(new DescribeTimeToLiveCommand({ TableName: 'test-workflow-runs' }));
    expect(ttl.TimeToLiveDescription).toMatchObject({
      AttributeName: WORKFLOW_RUNS_TABLE.ttlAttribute,
      TimeToLiveStatus: 'ENABLED',
    });
  });

  it('creates the dispatch queue with its visibility timeout and a redrive policy to the DLQ', async () => {
    const { dispatch, deadLetter } = resources.queues;
    const { Attributes } = await clients.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: dispatch.url, AttributeNames: ['All'] }),
    );
    expect(Attributes?.VisibilityTimeout).toBe('45');
    expect(JSON.parse(Attributes?.RedrivePolicy ?? '{}')).toMatchObject({ deadLetterTargetArn: deadLetter.arn });
    expect(Number(JSON.parse(Attributes?.RedrivePolicy ?? '{}').maxReceiveCount)).toBe(3);
    expect(deadLetter.arn).toMatch(/:test-dispatch-dlq$/);
  });

  it("creates each priority lane's dispatch queue as the normal lane's, with a redrive policy to its own DLQ", async () => {
    const { dispatchHigh, deadLetterHigh, dispatchLow, deadLetterLow } = resources.queues;
    for (const [dispatch, deadLetter, name] of [
      [dispatchHigh, deadLetterHigh, 'test-dispatch-high'],
      [dispatchLow, deadLetterLow, 'test-dispatch-low'],
    ] as const) {
      expect([dispatch.name, deadLetter.name]).toEqual([name, `${name}-dlq`]);
      const { Attributes } = await clients.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: dispatch.url, AttributeNames: ['All'] }),
      );
      expect(Attributes?.VisibilityTimeout, name).toBe('45');
      const redrive = JSON.parse(Attributes?.RedrivePolicy ?? '{}');
      expect(redrive.deadLetterTargetArn, name).toBe(deadLetter.arn);
      expect(Number(redrive.maxReceiveCount), name).toBe(3);
      const dlq = await clients.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: deadLetter.url, AttributeNames: ['MessageRetentionPeriod'] }),
      );
      expect(dlq.Attributes?.MessageRetentionPeriod, name).toBe(String(14 * 24 * 3600));
    }
    const urls = Object.values(resources.queues).map((queue) => queue.url);
    expect(new Set(urls).size).toBe(urls.length);
  });

  it('hands out queue URLs on the SQS endpoint, usable by clients configured only through env', async () => {
    expect(resources.queues.dispatch.url.startsWith(sqsEmulator.endpoint)).toBe(true);
    const sent = await clients.sqs.send(
      new SendMessageCommand({ QueueUrl: resources.queues.dispatch.url, MessageBody: '{}' }),
    );
    expect(sent.MessageId).toBeTruthy();
  });

  it('adds the declared indexes an existing table lacks', async () => {
    await clients.dynamodb.send(
      new CreateTableCommand({
        TableName: 'old-jobs',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'tenantId', AttributeType: 'S' },
          { AttributeName: 'jobId', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'tenantId', KeyType: 'HASH' },
          { AttributeName: 'jobId', KeyType: 'RANGE' },
        ],
      }),
    );
    await provisionLocalResources({
      dynamodb: clients.dynamodb,
      sqs: clients.sqs,
      sqsEndpoint: sqsEmulator.endpoint,
      namePrefix: 'old-',
    });
    const { Table } = await clients.dynamodb.send(new DescribeTableCommand({ TableName: 'old-jobs' }));
    expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName)).toEqual(['due-index']);
  });

  it('changes nothing when run again', async () => {
    const again = await provisionLocalResources({
      dynamodb: clients.dynamodb,
      sqs: clients.sqs,
      sqsEndpoint: sqsEmulator.endpoint,
      namePrefix: 'test-',
      maxReceiveCount: 3,
      visibilityTimeoutSeconds: 45,
    });
    expect(again).toEqual(resources);
  });
});
