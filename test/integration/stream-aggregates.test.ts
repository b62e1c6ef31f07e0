/**
 * The completion handler's counting through the local stream poller (Lambda's partial-batch
 * rules) and the real aggregates on DynamoDB Local: a record that fails, and a batch redelivered
 * after it was counted, still leave every run counted exactly once.
 */
import { PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoRunAggregates } from '#adapters/dynamodb/run-aggregates';
import { minuteOf } from '#core/metrics/run-sample';
import { COMPLETION_FILTER_PATTERNS } from '#handlers/completion-filter';
import { aggregateBatchOf, recordsBeforeFirstFailure, sequenceNumberOf } from '#handlers/stream-aggregates';
import { type RunningEmulator, startDynamoDbLocal } from '#local/emulators/dynamodb-local';
import { startSqsEmulator } from '#local/emulators/fauxqs';
import { createLocalClients, type LocalClients } from '#local/emulators/local-clients';
import { type ProvisionedResources, provisionLocalResources } from '#local/provision';
import { type RunningStreamPoller, startStreamPoller } from '#local/stream-poller';

const DUE = minuteOf(Date.now());
let dynamo: RunningEmulator;
let sqsEmulator: RunningEmulator;
let clients: LocalClients;
let resources: ProvisionedResources;
let aggregates: DynamoRunAggregates;
let poller: RunningStreamPoller | undefined;

beforeAll(async () => {
  [dynamo, sqsEmulator] = await Promise.all([startDynamoDbLocal(), startSqsEmulator()]);
  clients = createLocalClients({ dynamodb: dynamo.endpoint, sqs: sqsEmulator.endpoint });
  resources = await provisionLocalResources({
    dynamodb: clients.dynamodb,
    sqs: clients.sqs,
    sqsEndpoint: sqsEmulator.endpoint,
  });
  aggregates = new DynamoRunAggregates(DynamoDBDocumentClient.from(clients.dynamodb), resources.tables.metrics);
}, 60_000);
afterAll(async () => {
  await poller?.stop();
  clients?.destroy();
  await Promise.all([dynamo?.stop(), sqsEmulator?.stop()]);
});

const key = (i: number) => ({ pk: { S: 'agg#job' }, sk: { S: String(i).padStart(3, '0') } });
const putQueued = (i: number) =>
  clients.dynamodb.send(
    new PutItemCommand({
      TableName: resources.tables.runs,
      Item: {
        ...key(i),
        tenantId: { S: 'agg' },
        jobId: { S: 'job' },
        runId: { S: `run-${i}` },
        scheduledFor: { N: String(DUE) },
        attempt: { N: '1' },
        status: { S: 'QUEUED' },
      },
    }),
  );
const claim = (i: number) =>
  clients.dynamodb.send(
    new UpdateItemCommand({
      TableName: resources.tables.runs,
      Key: key(i),
      UpdateExpression: 'SET #s = :running',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':running': { S: 'RUNNING' } },
    }),
  );

describe('counting a runs-stream delivery once', () => {
  it('counts exactly across a failed record and a whole batch redelivered after it was counted', async () => {
    for (let i = 0; i < 6; i++) await putQueued(i);
    for (let i = 0; i < 3; i++) await claim(i);
    const deliveries: string[][] = [];
    // As the completion handler: count the records before the first failure, under the batch's name.
    const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
      const call = deliveries.push(event.Records.map(sequenceNumberOf));
      const failed = call === 1 ? [event.Records[3] as DynamoDBRecord] : [];
      const failedIds = failed.map((record) => ({ itemIdentifier: sequenceNumberOf(record) }));
      const counted = recordsBeforeFirstFailure(event.Records, new Set(failedIds.map((f) => f.itemIdentifier)));
      if (counted.length > 0) await aggregates.add(aggregateBatchOf(event.Records, counted, Date.now()));
      // Second call: counted, yet reported failed as a whole (as when its answer is lost): it comes back.
      if (call === 2)
        return { batchItemFailures: [{ itemIdentifier: sequenceNumberOf(event.Records[0] as DynamoDBRecord) }] };
      return { batchItemFailures: failedIds };
    };
    poller = startStreamPoller({
      streams: clients.streams,
      streamArn: resources.runsStreamArn,
      handler,
      filterPatterns: COMPLETION_FILTER_PATTERNS,
      pollIntervalMs: 100,
      retryDelayMs: 10,
      batchSize: 100,
    });

    await expect.poll(() => deliveries.length, { timeout: 10_000 }).toBe(3);
    // 6 inserts and 3 claims in one batch; then from the failed 4th record, twice.
    expect(deliveries[0]).toHaveLength(9);
    expect(deliveries[1]).toEqual(deliveries[0]?.slice(3));
    expect(deliveries[2]).toEqual(deliveries[1]);
    const [bucket] = await aggregates.read('agg', DUE, DUE);
    expect([bucket?.queuedIn, bucket?.queuedOut]).toEqual([6, 3]);
  });
});
