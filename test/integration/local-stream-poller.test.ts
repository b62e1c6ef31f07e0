import { DeleteItemCommand, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { COMPLETION_FILTER_PATTERNS } from '#handlers/completion-filter';
import { type RunningEmulator, startDynamoDbLocal } from '#local/emulators/dynamodb-local';
import { startSqsEmulator } from '#local/emulators/fauxqs';
import { createLocalClients, type LocalClients } from '#local/emulators/local-clients';
import { provisionLocalResources } from '#local/provision';
import {
  type RunningStreamPoller,
  type StreamBatchFailure,
  type StreamHandler,
  startStreamPoller,
} from '#local/stream-poller';

describe('startStreamPoller', () => {
  let dynamo: RunningEmulator;
  let sqsEmulator: RunningEmulator;
  let clients: LocalClients;
  let poller: RunningStreamPoller | undefined;
  let tableCount = 0;

  beforeAll(async () => {
    [dynamo, sqsEmulator] = await Promise.all([startDynamoDbLocal(), startSqsEmulator()]);
    clients = createLocalClients({ dynamodb: dynamo.endpoint, sqs: sqsEmulator.endpoint });
  }, 60_000);
  afterEach(async () => {
    await poller?.stop();
    poller = undefined;
  });
  afterAll(async () => {
    clients?.destroy();
    await Promise.all([dynamo?.stop(), sqsEmulator?.stop()]);
  });

  async function newRunsTable(): Promise<{ table: string; streamArn: string }> {
    const resources = await provisionLocalResources({
      dynamodb: clients.dynamodb,
      sqs: clients.sqs,
      sqsEndpoint: sqsEmulator.endpoint,
      namePrefix: `stream-${++tableCount}-`,
    });
    return { table: resources.tables.runs, streamArn: resources.runsStreamArn };
  }

  const putRun = (table: string, sk: string, status: string) =>
    clients.dynamodb.send(
      new PutItemCommand({ TableName: table, Item: { pk: { S: 't#j' }, sk: { S: sk }, status: { S: status } } }),
    );
  const setStatus = (table: string, sk: string, status: string, note = 'x') =>
    clients.dynamodb.send(
      new UpdateItemCommand({
        TableName: table,
        Key: { pk: { S: 't#j' }, sk: { S: sk } },
        UpdateExpression: 'SET #s = :s, note = :n',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':s': { S: status }, ':n': { S: note } },
      }),
    );
  const describeRecord = (record: DynamoDBRecord) =>
    `${record.eventName} ${record.dynamodb?.Keys?.sk?.S} ${record.dynamodb?.OldImage?.status?.S ?? '-'}>${record.dynamodb?.NewImage?.status?.S}`;

  function recorder(
    delivered: DynamoDBRecord[][],
    fail?: (record: DynamoDBRecord, call: number) => boolean,
  ): StreamHandler {
    let calls = 0;
    return async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
      calls++;
      delivered.push(event.Records);
      const failed = event.Records.filter((record) => fail?.(record, calls));
      return { batchItemFailures: failed.map((record) => ({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' })) };
    };
  }

  it('delivers INSERT and MODIFY records in order, shaped like Lambda stream records', async () => {
    const { table, streamArn } = await newRunsTable();
    const delivered: DynamoDBRecord[][] = [];
    poller = startStreamPoller({
      streams: clients.streams,
      streamArn,
      handler: recorder(delivered),
      pollIntervalMs: 100,
    });
    await putRun(table, 'a', 'QUEUED');
    await setStatus(table, 'a', 'RUNNING');
    await putRun(table, 'b', 'QUEUED');
    await setStatus(table, 'a', 'SUCCEEDED');

    await expect.poll(() => delivered.flat().length, { timeout: 5000 }).toBe(4);
    const records = delivered.flat();
    expect(records.map(describeRecord)).toEqual([
      'INSERT a ->QUEUED',
      'MODIFY a QUEUED>RUNNING',
      'INSERT b ->QUEUED',
      'MODIFY a RUNNING>SUCCEEDED',
    ]);
    const modify = records[1] as DynamoDBRecord;
    expect(modify).toMatchObject({
      eventName: 'MODIFY',
      eventSource: 'aws:dynamodb',
      eventSourceARN: streamArn,
      awsRegion: 'us-east-1',
      dynamodb: { Keys: { pk: { S: 't#j' }, sk: { S: 'a' } }, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    });
    expect(modify.eventID).toBeTruthy();
    expect(modify.eventVersion).toBeTruthy();
    expect(modify.dynamodb?.SizeBytes).toBeGreaterThan(0);
    expect(Math.abs((modify.dynamodb?.ApproximateCreationDateTime ?? 0) - Date.now() / 1000)).toBeLessThan(120);
    const sequence = records.map((record) => BigInt(record.dynamodb?.SequenceNumber ?? '0'));
    expect([...sequence].sort((x, y) => (x < y ? -1 : 1))).toEqual(sequence);
  });

  it('passes terminal transitions and moves into and out of QUEUED through the completion filter', async () => {
    const { table, streamArn } = await newRunsTable();
    const delivered: DynamoDBRecord[][] = [];
    poller = startStreamPoller({
      streams: clients.streams,
      streamArn,
      handler: recorder(delivered),
      filterPatterns: COMPLETION_FILTER_PATTERNS,
      pollIntervalMs: 100,
    });
    await putRun(table, 'a', 'QUEUED');
    await setStatus(table, 'a', 'RUNNING');
    await setStatus(table, 'a', 'RUNNING', 'heartbeat');
    await setStatus(table, 'a', 'FAILED');
    await setStatus(table, 'a', 'FAILED', 'rewritten');
    await putRun(table, 'b', 'QUEUED');
    await setStatus(table, 'b', 'CANCELLED');
    await putRun(table, 'c', 'QUEUED');
    await setStatus(table, 'c', 'QUEUED', 'still queued');
    await clients.dynamodb.send(new DeleteItemCommand({ TableName: table, Key: { pk: { S: 't#j' }, sk: { S: 'c' } } }));
    await putRun(table, 'd', 'RUNNING');
    await setStatus(table, 'd', 'QUEUED');
    await putRun(table, 'e', 'RUNNING');
    await clients.dynamodb.send(new DeleteItemCommand({ TableName: table, Key: { pk: { S: 't#j' }, sk: { S: 'e' } } }));
    await putRun(table, 'marker', 'RUNNING');
    await setStatus(table, 'marker', 'SUCCEEDED');

    await expect
      .poll(() => delivered.flat().some((r) => r.dynamodb?.Keys?.sk?.S === 'marker'), { timeout: 5000 })
      .toBe(true);
    expect(delivered.flat().map(describeRecord)).toEqual([
      'INSERT a ->QUEUED',
      'MODIFY a QUEUED>RUNNING',
      'MODIFY a RUNNING>FAILED',
      'INSERT b ->QUEUED',
      'MODIFY b QUEUED>CANCELLED',
      'INSERT c ->QUEUED',
      'MODIFY c QUEUED>QUEUED',
      'REMOVE c QUEUED>undefined',
      'MODIFY d RUNNING>QUEUED',
      'MODIFY marker RUNNING>SUCCEEDED',
    ]);
  });

  it('retries from the first reported failure without redelivering the records before it', async () => {
    const { table, streamArn } = await newRunsTable();
    const delivered: DynamoDBRecord[][] = [];
    const failOnceOnB = (record: DynamoDBRecord, call: number) => call === 1 && record.dynamodb?.Keys?.sk?.S === 'b';
    await putRun(table, 'a', 'QUEUED');
    await putRun(table, 'b', 'QUEUED');
    await putRun(table, 'c', 'QUEUED');
    poller = startStreamPoller({
      streams: clients.streams,
      streamArn,
      handler: recorder(delivered, failOnceOnB),
      pollIntervalMs: 100,
      retryDelayMs: 10,
    });

    await expect.poll(() => delivered.length, { timeout: 5000 }).toBe(2);
    expect(delivered.map((batch) => batch.map((r) => r.dynamodb?.Keys?.sk?.S))).toEqual([
      ['a', 'b', 'c'],
      ['b', 'c'],
    ]);
  });

  it('hands a batch that keeps failing to onFailure after the retries and goes on with later records', async () => {
    const { table, streamArn } = await newRunsTable();
    const delivered: DynamoDBRecord[][] = [];
    const failures: StreamBatchFailure[] = [];
    let crash = true;
    const handler: StreamHandler = async (event) => {
      delivered.push(event.Records);
      if (crash) throw new Error('completion is down');
      return { batchItemFailures: [] };
    };
    await putRun(table, 'a', 'QUEUED');
    poller = startStreamPoller({
      streams: clients.streams,
      streamArn,
      handler,
      pollIntervalMs: 100,
      maxRetries: 2,
      retryDelayMs: 10,
      onFailure: (failure) => {
        failures.push(failure);
        crash = false;
      },
      log: () => {},
    });

    await expect.poll(() => failures.length, { timeout: 5000 }).toBe(1);
    const failure = failures[0] as StreamBatchFailure;
    expect(failure.attempts).toBe(3);
    expect(failure.records.map((r) => r.dynamodb?.Keys?.sk?.S)).toEqual(['a']);
    expect((failure.error as Error).message).toBe('completion is down');
    await putRun(table, 'b', 'QUEUED');
    await expect.poll(() => delivered.at(-1)?.map((r) => r.dynamodb?.Keys?.sk?.S), { timeout: 5000 }).toEqual(['b']);
    expect(delivered).toHaveLength(4);
  });

  it('bisects a batch whose invocation throws, so only the poison record fails', async () => {
    const { table, streamArn } = await newRunsTable();
    const processed: string[] = [];
    const failures: StreamBatchFailure[] = [];
    const handler: StreamHandler = async (event) => {
      const keys = event.Records.map((r) => r.dynamodb?.Keys?.sk?.S ?? '');
      if (keys.includes('poison')) throw new Error('cannot parse');
      processed.push(...keys);
      return { batchItemFailures: [] };
    };
    for (const sk of ['a', 'b', 'poison', 'c']) await putRun(table, sk, 'QUEUED');
    poller = startStreamPoller({
      streams: clients.streams,
      streamArn,
      handler,
      pollIntervalMs: 100,
      maxRetries: 5,
      retryDelayMs: 1,
      bisectBatchOnError: true,
      onFailure: (failure) => {
        failures.push(failure);
      },
      log: () => {},
    });

    await expect.poll(() => failures.length, { timeout: 5000 }).toBe(1);
    expect(failures[0]?.records.map((r) => r.dynamodb?.Keys?.sk?.S)).toEqual(['poison']);
    await expect.poll(() => processed, { timeout: 5000 }).toEqual(['a', 'b', 'c']);
  });
  it('goes on after the checkpoint a replaced poller reported, as the mapping does when its function dies', async () => {
    const { table, streamArn } = await newRunsTable();
    const first: DynamoDBRecord[][] = [];
    const checkpoints: Record<string, string> = {};
    poller = startStreamPoller({
      streams: clients.streams,
      streamArn,
      handler: recorder(first),
      pollIntervalMs: 100,
      checkpoints: {
        get: () => undefined,
        set: (shardId, sequenceNumber) => {
          checkpoints[shardId] = sequenceNumber;
        },
      },
    });
    await putRun(table, 'a', 'QUEUED');
    await putRun(table, 'b', 'QUEUED');
    await expect.poll(() => first.flat().length, { timeout: 5000 }).toBe(2);
    const last = first.flat()[1]?.dynamodb?.SequenceNumber;
    await expect.poll(() => Object.values(checkpoints), { timeout: 5000 }).toEqual([last]);
    await poller.stop();

    await putRun(table, 'c', 'QUEUED');
    const second: DynamoDBRecord[][] = [];
    poller = startStreamPoller({
      streams: clients.streams,
      streamArn,
      handler: recorder(second),
      pollIntervalMs: 100,
      checkpoints: { get: (shardId) => checkpoints[shardId], set: () => undefined },
    });
    await expect.poll(() => second.flat().map(describeRecord), { timeout: 5000 }).toEqual(['INSERT c ->QUEUED']);
  });

  it('gathers records for its batching window and delivers them in one invocation, as the deployed mapping does', async () => {
    const { table, streamArn } = await newRunsTable();
    const delivered: DynamoDBRecord[][] = [];
    const deliveredAt: number[] = [];
    const record = recorder(delivered);
    poller = startStreamPoller({
      streams: clients.streams,
      streamArn,
      handler: async (event, context) => {
        deliveredAt.push(Date.now());
        return record(event, context);
      },
      pollIntervalMs: 50,
      batchingWindowMs: 1_500,
    });
    const firstPut = Date.now();
    // Records trickling in 200 ms apart, well within the window: one invocation for all five.
    for (const sk of ['a', 'b', 'c', 'd', 'e']) {
      await putRun(table, sk, 'QUEUED');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await expect.poll(() => delivered.flat().length, { timeout: 5000 }).toBe(5);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]?.map(describeRecord)).toEqual(['a', 'b', 'c', 'd', 'e'].map((sk) => `INSERT ${sk} ->QUEUED`));
    // Not before the window ran out after the first record came.
    expect((deliveredAt[0] as number) - firstPut).toBeGreaterThanOrEqual(1_400);
  });
});
