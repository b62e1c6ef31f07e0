import { createHash } from 'node:crypto';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '#local/emulators/dynamodb-local';
import { startSqsEmulator } from '#local/emulators/fauxqs';
import { createLocalClients, type LocalClients } from '#local/emulators/local-clients';
import { onEndpoint } from '#local/provision';
import { type RunningSqsPoller, type SqsHandler, startSqsPoller } from '#local/sqs-poller';

interface Delivery {
  record: SQSRecord;
  at: number;
}

describe('startSqsPoller', () => {
  let emulator: RunningEmulator;
  let clients: LocalClients;
  let poller: RunningSqsPoller | undefined;
  let queueCount = 0;

  beforeAll(async () => {
    emulator = await startSqsEmulator();
    clients = createLocalClients({ dynamodb: 'http://127.0.0.1:1', sqs: emulator.endpoint });
  });
  afterEach(async () => {
    await poller?.stop();
    poller = undefined;
  });
  afterAll(async () => {
    clients?.destroy();
    await emulator?.stop();
  });

  /** A fresh queue; a visibility timeout of a second unless a test holds its messages longer. */
  async function newQueue(visibilityTimeoutSeconds = 1): Promise<{ url: string; arn: string }> {
    const created = await clients.sqs.send(
      new CreateQueueCommand({
        QueueName: `poller-${++queueCount}`,
        Attributes: { VisibilityTimeout: String(visibilityTimeoutSeconds) },
      }),
    );
    const url = onEndpoint(created.QueueUrl, emulator.endpoint);
    const { Attributes } = await clients.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
    );
    return { url, arn: Attributes?.QueueArn as string };
  }

  async function messagesLeft(url: string): Promise<number> {
    const { Attributes } = await clients.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }),
    );
    return (
      Number(Attributes?.ApproximateNumberOfMessages) +
      Number(Attributes?.ApproximateNumberOfMessagesNotVisible) +
      Number(Attributes?.ApproximateNumberOfMessagesDelayed)
    );
  }

  function recordingHandler(decide: (record: SQSRecord) => 'ok' | 'fail', deliveries: Delivery[]): SqsHandler {
    return async (event: SQSEvent): Promise<SQSBatchResponse> => {
      const failed = event.Records.filter((record) => {
        deliveries.push({ record, at: Date.now() });
        return decide(record) === 'fail';
      });
      return { batchItemFailures: failed.map((record) => ({ itemIdentifier: record.messageId })) };
    };
  }

  it('builds Lambda SQS records with attributes, message attributes and the queue ARN', async () => {
    const queue = await newQueue();
    const deliveries: Delivery[] = [];
    poller = startSqsPoller({
      sqs: clients.sqs,
      queueUrl: queue.url,
      queueArn: queue.arn,
      handler: recordingHandler(() => 'ok', deliveries),
      concurrency: 2,
    });
    await clients.sqs.send(
      new SendMessageCommand({
        QueueUrl: queue.url,
        MessageBody: '{"runId":"r1"}',
        MessageAttributes: { kind: { DataType: 'String', StringValue: 'dispatch' } },
      }),
    );
    await expect.poll(() => deliveries.length, { timeout: 5000 }).toBe(1);
    const record = deliveries[0]?.record as SQSRecord;
    expect(record).toMatchObject({
      body: '{"runId":"r1"}',
      eventSource: 'aws:sqs',
      eventSourceARN: queue.arn,
      awsRegion: 'us-east-1',
      md5OfBody: createHash('md5').update('{"runId":"r1"}').digest('hex'),
      messageAttributes: {
        kind: { dataType: 'String', stringValue: 'dispatch', stringListValues: [], binaryListValues: [] },
      },
    });
    expect(record.messageId).toBeTruthy();
    expect(record.receiptHandle).toBeTruthy();
    expect(record.attributes.ApproximateReceiveCount).toBe('1');
    expect(Number(record.attributes.SentTimestamp)).toBeGreaterThan(0);
    expect(Number(record.attributes.ApproximateFirstReceiveTimestamp)).toBeGreaterThanOrEqual(
      Number(record.attributes.SentTimestamp),
    );
    await expect.poll(() => messagesLeft(queue.url), { timeout: 5000 }).toBe(0);
  });

  it('deletes the records that succeeded and lets failed ones come back after the visibility timeout', async () => {
    const queue = await newQueue();
    const deliveries: Delivery[] = [];
    const failFirstTry = (record: SQSRecord) =>
      record.body === 'b' && record.attributes.ApproximateReceiveCount === '1' ? 'fail' : 'ok';
    await clients.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queue.url,
        Entries: ['a', 'b', 'c'].map((body) => ({ Id: body, MessageBody: body })),
      }),
    );
    poller = startSqsPoller({
      sqs: clients.sqs,
      queueUrl: queue.url,
      queueArn: queue.arn,
      handler: recordingHandler(failFirstTry, deliveries),
      concurrency: 1,
    });

    await expect.poll(() => deliveries.filter((d) => d.record.body === 'b').length, { timeout: 8000 }).toBe(2);
    const retried = deliveries.filter((d) => d.record.body === 'b');
    expect(retried[1]?.record.attributes.ApproximateReceiveCount).toBe('2');
    expect(
      deliveries
        .filter((d) => d.record.body !== 'b')
        .map((d) => d.record.body)
        .sort(),
    ).toEqual(['a', 'c']);
    await expect.poll(() => messagesLeft(queue.url), { timeout: 5000 }).toBe(0);
  });

  it('deletes nothing when the handler throws, so the whole batch is redelivered', async () => {
    const queue = await newQueue();
    const attempts: string[] = [];
    const handler: SqsHandler = async (event) => {
      for (const record of event.Records) attempts.push(record.attributes.ApproximateReceiveCount);
      if (attempts.length === 1) throw new Error('crash');
      return { batchItemFailures: [] };
    };
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'x' }));
    poller = startSqsPoller({
      sqs: clients.sqs,
      queueUrl: queue.url,
      queueArn: queue.arn,
      handler,
      concurrency: 1,
      log: () => {},
    });
    await expect.poll(() => attempts, { timeout: 8000 }).toEqual(['1', '2']);
    await expect.poll(() => messagesLeft(queue.url), { timeout: 5000 }).toBe(0);
  });

  it('fails the whole batch when the response names a message that is not in it', async () => {
    const queue = await newQueue();
    let calls = 0;
    const handler: SqsHandler = async () => {
      calls++;
      return { batchItemFailures: calls === 1 ? [{ itemIdentifier: 'not-in-batch' }] : [] };
    };
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'x' }));
    poller = startSqsPoller({ sqs: clients.sqs, queueUrl: queue.url, queueArn: queue.arn, handler, concurrency: 1 });
    await expect.poll(() => calls, { timeout: 8000 }).toBe(2);
  });

  it('delivers a message sent with DelaySeconds only once the delay has passed', async () => {
    const queue = await newQueue();
    const deliveries: Delivery[] = [];
    poller = startSqsPoller({
      sqs: clients.sqs,
      queueUrl: queue.url,
      queueArn: queue.arn,
      handler: recordingHandler(() => 'ok', deliveries),
      concurrency: 2,
    });
    const sentAt = Date.now();
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'later', DelaySeconds: 2 }));
    await expect.poll(() => deliveries.length, { timeout: 6000 }).toBe(1);
    expect((deliveries[0] as Delivery).at - sentAt).toBeGreaterThanOrEqual(1900);
  });

  it('scales up while every invocation is busy, as the event source does, and back down once the queue is empty', async () => {
    const { url, arn } = await newQueue(60);
    let receives = 0;
    clients.sqs.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'ReceiveMessageCommand') receives++;
        return next(args);
      },
      { step: 'initialize', name: 'countReceives' },
    );
    let running = 0;
    let mostAtOnce = 0;
    let handled = 0;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      poller = startSqsPoller({
        sqs: clients.sqs,
        queueUrl: url,
        queueArn: arn,
        // Invocations that wait (as executors wait for their runs' due time) hold their worker.
        handler: async (event) => {
          running++;
          mostAtOnce = Math.max(mostAtOnce, running);
          await held;
          handled += event.Records.length;
          running--;
          return { batchItemFailures: [] };
        },
        concurrency: 12,
        baseConcurrency: 2,
        waitTimeSeconds: 1,
      });
      for (let i = 0; i < 6; i++) {
        await clients.sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: url,
            Entries: Array.from({ length: 10 }, (_, j) => ({ Id: String(j), MessageBody: `m-${i}-${j}` })),
          }),
        );
      }
      // Two workers alone would hold at most 20 messages; scaled up, all 60 are received while held.
      await expect.poll(() => handledOrHeld(), { timeout: 10_000 }).toBe(60);
      expect(mostAtOnce).toBeGreaterThan(2);
      expect(mostAtOnce).toBeLessThanOrEqual(12);
      release();
      await expect.poll(() => handled, { timeout: 10_000 }).toBe(60);
      await expect.poll(() => messagesLeft(url), { timeout: 10_000 }).toBe(0);
      // Idle again: the workers beyond the base stop after an empty receive, so only the base two
      // keep long-polling (about two receives a second, not twelve).
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      const before = receives;
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(receives - before).toBeLessThanOrEqual(10);
    } finally {
      release();
      clients.sqs.middlewareStack.remove('countReceives');
    }

    function handledOrHeld(): number {
      return handled + running * 10;
    }
  });

  it('keeps one worker receiving while every other holds a batch, through a lull with nothing to receive', async () => {
    const { url, arn } = await newQueue(60);
    let held = 0;
    let release: () => void = () => undefined;
    const releasing = new Promise<void>((resolve) => {
      release = resolve;
    });
    const sendTen = (wave: number) =>
      clients.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: url,
          Entries: Array.from({ length: 10 }, (_, j) => ({ Id: String(j), MessageBody: `w${wave}-${j}` })),
        }),
      );
    try {
      poller = startSqsPoller({
        sqs: clients.sqs,
        queueUrl: url,
        queueArn: arn,
        // Every batch is held (as executors hold runs released early until their second).
        handler: async (event) => {
          held += event.Records.length;
          await releasing;
          return { batchItemFailures: [] };
        },
        concurrency: 6,
        baseConcurrency: 1,
        waitTimeSeconds: 1,
      });
      await sendTen(1);
      await sendTen(2);
      await expect.poll(() => held, { timeout: 10_000 }).toBe(20);
      // A lull longer than a long poll: the worker added after the second batch receives nothing.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      await sendTen(3);
      // Both earlier batches are still held; only a worker that kept polling receives the third.
      await expect.poll(() => held, { timeout: 10_000 }).toBe(30);
    } finally {
      release();
    }
  });
});
