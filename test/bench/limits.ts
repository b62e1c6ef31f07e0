/**
 * The ceilings of this machine, measured in the same run so the workloads read as ratios: the HTTP
 * target driven by a plain load loop (no scheduler), DynamoDB Local raw PutItem/s, and fauxqs
 * send + receive + delete cycles/s. Each loop runs `parallelism` workers for `durationMs`.
 */
import { fileURLToPath } from 'node:url';
import { CreateTableCommand, DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { startDynamoDbLocal } from '#local/emulators/dynamodb-local';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators/local-clients';
import { startChild } from './child-process.ts';

export interface Limits {
  targetCallsPerSecond: number;
  dynamodbPutItemPerSecond: number;
  fauxqsSendReceiveDeletePerSecond: number;
  parallelism: { target: number; dynamodb: number; fauxqs: number };
  durationMs: number;
}

const DURATION_MS = 4_000;
const WARM_UP_MS = 3_000;
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const common = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };

/** Runs `step` in `parallelism` loops for `durationMs`; returns completed steps per second. */
export async function loopRate(parallelism: number, durationMs: number, step: (worker: number) => Promise<void>) {
  let done = 0;
  const startedAt = performance.now();
  const until = startedAt + durationMs;
  await Promise.all(
    Array.from({ length: parallelism }, async (_, worker) => {
      while (performance.now() < until) {
        await step(worker);
        done++;
      }
    }),
  );
  return done / ((performance.now() - startedAt) / 1000);
}

/** Measures the three ceilings one after the other. */
export async function measureLimits(progress: (line: string) => void): Promise<Limits> {
  const parallelism = { target: 32, dynamodb: 32, fauxqs: 16 };

  const target = await startChild<{ url: string }>(here('./target-process.ts'));
  let targetCallsPerSecond: number;
  try {
    const url = `${target.ready.url}/direct`;
    targetCallsPerSecond = await loopRate(parallelism.target, DURATION_MS, async () => {
      const response = await fetch(url, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      });
      await response.text();
    });
  } finally {
    await target.stop();
  }
  progress(`target driven directly: ${targetCallsPerSecond.toFixed(0)} calls/s`);

  const dynamodb = await startDynamoDbLocal();
  let dynamodbPutItemPerSecond: number;
  try {
    const client = new DynamoDBClient({ ...common, endpoint: dynamodb.endpoint });
    await client.send(
      new CreateTableCommand({
        TableName: 'bench-raw',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      }),
    );
    let n = 0;
    // DynamoDB Local is a JVM: let the JIT warm up before measuring.
    await loopRate(parallelism.dynamodb, WARM_UP_MS, async () => {
      await client.send(new PutItemCommand({ TableName: 'bench-raw', Item: { pk: { S: `warm-${n++}` } } }));
    });
    dynamodbPutItemPerSecond = await loopRate(parallelism.dynamodb, DURATION_MS, async () => {
      await client.send(
        new PutItemCommand({
          TableName: 'bench-raw',
          Item: { pk: { S: `item-${n++}` }, body: { S: 'x'.repeat(200) } },
        }),
      );
    });
    client.destroy();
  } finally {
    await dynamodb.stop();
  }
  progress(`DynamoDB Local raw PutItem: ${dynamodbPutItemPerSecond.toFixed(0)}/s`);

  const sqs = await startChild<{ endpoint: string }>(here('./fauxqs-process.ts'));
  let fauxqsSendReceiveDeletePerSecond: number;
  try {
    const client = new SQSClient({ ...common, endpoint: sqs.ready.endpoint });
    const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: 'bench-raw' }));
    fauxqsSendReceiveDeletePerSecond = await loopRate(parallelism.fauxqs, DURATION_MS, async () => {
      await client.send(new SendMessageCommand({ QueueUrl, MessageBody: '{"bench":true}' }));
      const { Messages = [] } = await client.send(
        new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 0 }),
      );
      for (const message of Messages) {
        await client.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: message.ReceiptHandle }));
      }
    });
    client.destroy();
  } finally {
    await sqs.stop();
  }
  progress(`fauxqs send+receive+delete: ${fauxqsSendReceiveDeletePerSecond.toFixed(0)} cycles/s`);

  return {
    targetCallsPerSecond,
    dynamodbPutItemPerSecond,
    fauxqsSendReceiveDeletePerSecond,
    parallelism,
    durationMs: DURATION_MS,
  };
}
