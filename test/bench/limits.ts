/**
 * The ceilings of this machine, measured in the same run so the workloads read as ratios: the HTTP
 * target driven by a plain load loop (no scheduler), DynamoDB Local raw PutItem/s, and fauxqs
 * send + receive + delete cycles/s. Each loop runs `parallelism` workers for `durationMs`. Also the
 * target taking a burst in: BURST_INTAKE_CALLS calls sent at once from one process over new
 * connections, as an executor process sends a burst's calls at its due second — the floor of a
 * burst's lag on this machine once every run is ready before it (precision.ts, N = 5,000).
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
import { Agent, request } from 'undici';
import { startDynamoDbLocal } from '#local/emulators/dynamodb-local';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators/local-clients';
import { type ChildHandle, startChild } from './child-process.ts';
import { type Summary, summarize } from './stats.ts';

export interface Limits {
  targetCallsPerSecond: number;
  dynamodbPutItemPerSecond: number;
  fauxqsSendReceiveDeletePerSecond: number;
  /** Arrival at the target − the moment BURST_INTAKE_CALLS calls were sent at once (ms). */
  targetBurstIntake?: { calls: number; arrivalMs: Summary };
  parallelism: { target: number; dynamodb: number; fauxqs: number };
  durationMs: number;
}

const DURATION_MS = 4_000;
/** The bench's largest burst (precision N = 5,000). */
export const BURST_INTAKE_CALLS = 5_000;
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
  let targetBurstIntake: Limits['targetBurstIntake'];
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
    targetBurstIntake = await burstIntake(target, BURST_INTAKE_CALLS);
  } finally {
    await target.stop();
  }
  progress(`target driven directly: ${targetCallsPerSecond.toFixed(0)} calls/s`);
  progress(
    `target taking ${BURST_INTAKE_CALLS} calls sent at once: arrival p50 ${targetBurstIntake?.arrivalMs.p50} ms, p99 ${targetBurstIntake?.arrivalMs.p99} ms`,
  );

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
    targetBurstIntake,
    dynamodbPutItemPerSecond,
    fauxqsSendReceiveDeletePerSecond,
    parallelism,
    durationMs: DURATION_MS,
  };
}

/**
 * `calls` POSTs sent at once with undici's `request` (the executor's client) over new connections,
 * after one warm-up call compiled the client; the target stamps each arrival.
 */
async function burstIntake(target: ChildHandle<{ url: string }>, calls: number): Promise<Limits['targetBurstIntake']> {
  const agent = new Agent();
  try {
    const post = async (path: string) => {
      const response = await request(`${target.ready.url}${path}`, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
        dispatcher: agent,
      });
      await response.body.text();
    };
    await post('/warm-up');
    await target.request('reset');
    const sentAt = Date.now();
    await Promise.all(Array.from({ length: calls }, (_, i) => post(`/intake/${i}`)));
    const arrivals = await target.request<Array<[number, string, string]>>('calls');
    return { calls, arrivalMs: summarize(arrivals.map(([at]) => at - sentAt)) };
  } finally {
    await agent.close();
  }
}
