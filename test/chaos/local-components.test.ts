/**
 * The `components` option of startLocalChronos, which the chaos run's processes rely on: an
 * instance runs only the parts it is given, and several share one set of emulators.
 */
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators/local-clients';

const executed: SQSRecord[] = [];
let executorOnly: LocalChronos;
let scannerOnly: LocalChronos;

beforeAll(async () => {
  executorOnly = await startLocalChronos({
    namePrefix: 'parts-',
    components: { api: false, scanner: false, completion: false, deadLetters: false },
    handlers: {
      executor: async (event) => {
        executed.push(...event.Records);
        return { batchItemFailures: [] };
      },
    },
    log: () => undefined,
  });
  scannerOnly = await startLocalChronos({
    namePrefix: 'parts-',
    endpoints: executorOnly.endpoints,
    components: { api: false, executor: false, completion: false, deadLetters: false },
    scannerIntervalMs: 0,
    handlers: { scanner: async () => ({ materialized: 3 }) },
    log: () => undefined,
  });
}, 60_000);
afterAll(async () => {
  await scannerOnly?.stop();
  await executorOnly?.stop();
});

it('runs no API where it is left out', () => {
  expect(executorOnly.apiUrl).toBe('');
  expect(scannerOnly.apiUrl).toBe('');
});

it('runs the scanner only where it is included', async () => {
  await expect(scannerOnly.invokeScanner()).resolves.toEqual({ materialized: 3 });
  await expect(executorOnly.invokeScanner()).rejects.toThrow('runs no scanner');
});

it('leaves the dispatch queue to the instance that runs the executor, on shared emulators', async () => {
  const sqs = new SQSClient({
    endpoint: executorOnly.endpoints.sqs,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  const bodies = ['{"runId":"a"}', '{"runId":"b"}', '{"runId":"c"}', '{"runId":"d"}'];
  for (const body of bodies) {
    await sqs.send(new SendMessageCommand({ QueueUrl: scannerOnly.queues.dispatch.url, MessageBody: body }));
  }
  sqs.destroy();

  // Had the scanner-only instance taken one, its stand-in executor would have failed it, and the
  // message would stay invisible for the deployed visibility timeout (half an hour).
  await expect.poll(() => executed.map((record) => record.body).sort(), { timeout: 10_000 }).toEqual(bodies);
  expect(scannerOnly.queues.dispatch.url).toBe(executorOnly.queues.dispatch.url);
});

it('reports the completion mapping checkpoint of the instance that runs it (a replacement goes on from it)', async () => {
  const checkpoints: Array<{ shardId: string; sequenceNumber: string }> = [];
  const completionOnly = await startLocalChronos({
    namePrefix: 'parts-',
    endpoints: executorOnly.endpoints,
    components: { api: false, executor: false, scanner: false, deadLetters: false, notifier: false },
    handlers: { completion: async () => ({ batchItemFailures: [] }) },
    completionCheckpoints: {
      get: () => undefined,
      set: (shardId, sequenceNumber) => checkpoints.push({ shardId, sequenceNumber }),
    },
    log: () => undefined,
  });
  const dynamodb = new DynamoDBClient({
    endpoint: executorOnly.endpoints.dynamodb,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  try {
    await dynamodb.send(
      new PutItemCommand({
        TableName: completionOnly.tables.runs,
        Item: { pk: { S: 'parts#job' }, sk: { S: '1#001' }, status: { S: 'QUEUED' } },
      }),
    );
    await expect.poll(() => checkpoints.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(checkpoints[0]?.sequenceNumber).toMatch(/^\d+$/);
  } finally {
    dynamodb.destroy();
    await completionOnly.stop();
  }
});
