import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoRunRepository } from '#adapters/dynamodb/run-repository';
import { BatchLeaseVisibility } from '#adapters/sqs/batch-lease-visibility';
import { type LaneQueueUrls, laneQueueUrlOfSource } from '#adapters/sqs/lane-queues';
import { SqsRunDispatcher } from '#adapters/sqs/run-dispatcher';
import type { DispatchMessage, Run } from '#core/model';
import type { RunRepository } from '#core/ports';
import { PRIORITIES, type Priority } from '#core/priority';
import { materializeOccurrences } from '#core/use-cases/materialize-occurrences';
import { onEndpoint } from '#local/provision';
import { type EmulatedAws, startEmulatedAws } from '../support/emulated-aws.ts';
import { InMemoryJobRepository } from '../support/fakes/in-memory-jobs.ts';
import { jobFixture } from '../support/job-fixture.ts';

let aws: EmulatedAws;
beforeAll(async () => {
  aws = await startEmulatedAws({ visibilityTimeoutSeconds: 30 });
});
afterAll(() => aws?.stop());

/** Polls for `waitMs`; short polls only, so no receive reaches past the window. */
async function receiveAll(sqs: SQSClient, queueUrl: string, waitMs: number): Promise<DispatchMessage[]> {
  const received: DispatchMessage[] = [];
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
    );
    if (Messages.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    received.push(...Messages.map((m) => JSON.parse(m.Body ?? '{}') as DispatchMessage));
  }
  return received;
}

/** The first message of `jobId` received within `waitMs`, and when it was received. */
async function receiveFirst(sqs: SQSClient, queueUrl: string, jobId: string, waitMs: number) {
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
    );
    const bodies = Messages.map((m) => JSON.parse(m.Body ?? '{}') as DispatchMessage);
    const mine = bodies.find((body) => body.jobId === jobId);
    if (mine) return { at: Date.now(), message: mine };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no message of ${jobId} within ${waitMs} ms`);
}

const message = (i: number): DispatchMessage => ({
  tenantId: 't',
  jobId: `J${i}`,
  scheduledFor: 1_000 + i,
  attempt: 1,
  runId: `J${i}_${1_000 + i}_1`,
});

describe('SqsRunDispatcher', () => {
  it('sends every message of a large set in batches, bodies intact', async () => {
    const queue = aws.resources.queues.dispatch.url;
    const dispatcher = new SqsRunDispatcher(aws.sqs, queue);

    await dispatcher.dispatch(Array.from({ length: 23 }, (_, i) => ({ message: message(i), releaseAt: Date.now() })));

    const received = await receiveAll(aws.sqs, queue, 2_500);
    expect(received.map((m) => m.runId).sort()).toEqual(Array.from({ length: 23 }, (_, i) => message(i).runId).sort());
    expect(received.find((m) => m.jobId === 'J7')).toEqual(message(7));
  });

  it('holds a delayed message back until at most a second before its release time', async () => {
    const queue = aws.resources.queues.dispatch.url;
    const dispatcher = new SqsRunDispatcher(aws.sqs, queue);
    const sentAt = Date.now();

    // DelaySeconds is rounded down (the executor waits out the sub-second rest), and taken when the
    // send begins: however long the send takes to start, the message is never visible before
    // releaseAt - 1 s.
    await dispatcher.dispatch([{ message: message(99), releaseAt: sentAt + 3_000 }]);

    const first = await receiveFirst(aws.sqs, queue, 'J99', 6_000);
    expect(first.message).toEqual(message(99));
    expect(first.at - sentAt).toBeGreaterThanOrEqual(2_000);
  });

  it('releases a run at its due second even when the pass that sends it spent seconds before sending', async () => {
    const queue = aws.resources.queues.dispatch.url;
    const planned = Date.now();
    const due = planned + 4_000;
    const job = jobFixture(due, { jobId: 'J-slow-pass', occurrenceCount: 0 });
    const jobs = new InMemoryJobRepository();
    await jobs.create(job);
    // A pass whose run put takes 2.5 s (a throttled table, a busy host): it sends late.
    const stored = new DynamoRunRepository(aws.documents, aws.resources.tables.runs, 4);
    const slowRuns: RunRepository = Object.assign(Object.create(stored), {
      createIfAbsent: async (run: Run) => {
        await new Promise((resolve) => setTimeout(resolve, 2_500));
        return stored.createIfAbsent(run);
      },
    });

    await materializeOccurrences(
      {
        jobs,
        runs: slowRuns,
        dispatcher: new SqsRunDispatcher(aws.sqs, queue),
        config: { horizonMs: 10_000, retentionDays: 1, shardCount: 4 },
      },
      [{ ...job, nextFireAt: due }],
      planned,
    );

    const received = await receiveFirst(aws.sqs, queue, 'J-slow-pass', 8_000);
    // SQS delays are whole seconds, rounded down: released within the second before its due time,
    // not the 2.5 s the pass took after it (a delay taken when the pass planned, 4 s, would release it at +6.5 s).
    expect(received.message.jobId).toBe('J-slow-pass');
    expect(received.at).toBeGreaterThanOrEqual(due - 1_000);
    expect(received.at).toBeLessThan(due + 750);
  });

  it('fails loudly when the queue does not exist', async () => {
    const dispatcher = new SqsRunDispatcher(aws.sqs, `${aws.resources.queues.dispatch.url}-missing`);
    await expect(dispatcher.dispatch([{ message: message(1), releaseAt: Date.now() }])).rejects.toThrow();
  });
});

/** A fresh queue of its own (a half-hour visibility timeout, as deployed), with its URL and ARN. */
async function freshQueue(name: string) {
  const endpoint = new URL(aws.resources.queues.dispatch.url).origin;
  const created = await aws.sqs.send(
    new CreateQueueCommand({ QueueName: name, Attributes: { VisibilityTimeout: '1800' } }),
  );
  const url = onEndpoint(created.QueueUrl, endpoint);
  const { Attributes } = await aws.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  return { url, arn: Attributes?.QueueArn as string };
}

/** Three fresh lane queues, named `<prefix>-<lane>`. */
async function freshLanes(prefix: string) {
  const [high, normal, low] = await Promise.all(PRIORITIES.map((lane) => freshQueue(`${prefix}-${lane}`)));
  const queues = { high, normal, low } as Record<Priority, { url: string; arn: string }>;
  const urls: LaneQueueUrls = { high: queues.high.url, normal: queues.normal.url, low: queues.low.url };
  return { queues, urls };
}

describe('SqsRunDispatcher with priority lanes (issue #22)', () => {
  it("sends each run's message to its lane's queue, and a message without a lane to normal", async () => {
    const { urls } = await freshLanes('routing');
    const laneOf = (i: number): Priority | undefined => (i % 3 === 0 ? 'high' : i % 3 === 1 ? 'low' : undefined);
    const sent = Array.from({ length: 25 }, (_, i) => {
      const priority = laneOf(i);
      return { ...message(i), ...(priority === undefined ? {} : { priority }) };
    });

    await new SqsRunDispatcher(aws.sqs, urls).dispatch(sent.map((m) => ({ message: m, releaseAt: Date.now() })));

    const [high, normal, low] = await Promise.all(PRIORITIES.map((lane) => receiveAll(aws.sqs, urls[lane], 2_000)));
    const ids = (list: DispatchMessage[]) => list.map((m) => m.runId).sort();
    expect(ids(high ?? [])).toEqual(ids(sent.filter((m) => m.priority === 'high')));
    expect(ids(low ?? [])).toEqual(ids(sent.filter((m) => m.priority === 'low')));
    expect(ids(normal ?? [])).toEqual(ids(sent.filter((m) => m.priority === undefined)));
    // The body keeps its lane: a message the executor sends back stays in it.
    expect(high?.every((m) => m.priority === 'high')).toBe(true);
  });

  it("still sends the other lanes' messages when one lane's queue refuses them, and reports the failure", async () => {
    const { urls } = await freshLanes('refused');
    const broken = { ...urls, low: `${urls.low}-missing` };
    const sent = [
      { ...message(1), priority: 'high' as const },
      { ...message(2), priority: 'low' as const },
      message(3),
    ];

    await expect(
      new SqsRunDispatcher(aws.sqs, broken).dispatch(sent.map((m) => ({ message: m, releaseAt: Date.now() }))),
    ).rejects.toThrow();

    expect((await receiveAll(aws.sqs, urls.high, 1_500)).map((m) => m.runId)).toEqual([message(1).runId]);
    expect((await receiveAll(aws.sqs, urls.normal, 1_000)).map((m) => m.runId)).toEqual([message(3).runId]);
  });
});

describe('the executor lease visibility with priority lanes (issue #22)', () => {
  /** Receives the one message waiting on `queue`, as the event source would hand it over. */
  async function receiveRecord(queue: { url: string; arn: string }) {
    const { Messages = [] } = await aws.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queue.url, MaxNumberOfMessages: 1, WaitTimeSeconds: 1 }),
    );
    const [received] = Messages as [Message];
    expect(received).toBeDefined();
    return {
      messageId: received.MessageId as string,
      receiptHandle: received.ReceiptHandle as string,
      eventSourceARN: queue.arn,
      body: received.Body as string,
    };
  }

  it('hides a record from the high queue on the high queue, and one from the normal queue on its own', async () => {
    const { queues, urls } = await freshLanes('lease');
    await aws.sqs.send(
      new SendMessageCommand({ QueueUrl: urls.high, MessageBody: JSON.stringify({ runId: 'high run' }) }),
    );
    await aws.sqs.send(
      new SendMessageCommand({ QueueUrl: urls.normal, MessageBody: JSON.stringify({ runId: 'normal run' }) }),
    );
    const records = [await receiveRecord(queues.high), await receiveRecord(queues.normal)];
    const failures: string[] = [];
    const visibility = new BatchLeaseVisibility(
      aws.sqs,
      (record) => laneQueueUrlOfSource(urls, record.eventSourceARN),
      records,
    );

    // Both claimed with a lease that ends in a second: hidden until then plus the slack (not the queue's half hour).
    const leaseEnds = Date.now() + 1_000;
    for (const record of records)
      visibility.forMessage(record, (reason) => failures.push(reason)).afterLease(leaseEnds);
    await visibility.done();

    expect(failures).toEqual([]);
    // Each comes back on its own queue once the lease and the slack have passed: the change was made on that queue.
    const [high, normal] = await Promise.all([
      receiveAll(aws.sqs, urls.high, 6_000),
      receiveAll(aws.sqs, urls.normal, 6_000),
    ]);
    expect(high.map((m) => m.runId)).toEqual(['high run']);
    expect(normal.map((m) => m.runId)).toEqual(['normal run']);
  });

  it('reports a record from a queue that is no lane instead of changing another queue', async () => {
    const { urls } = await freshLanes('stranger');
    const stranger = await freshQueue('stranger-queue');
    await aws.sqs.send(
      new SendMessageCommand({ QueueUrl: stranger.url, MessageBody: JSON.stringify({ runId: 'from elsewhere' }) }),
    );
    const record = await receiveRecord(stranger);
    const failures: string[] = [];
    const visibility = new BatchLeaseVisibility(aws.sqs, (r) => laneQueueUrlOfSource(urls, r.eventSourceARN), [record]);

    visibility.forMessage(record, (reason) => failures.push(reason)).comeBackIn(0);
    await visibility.done();

    expect(failures).toEqual(['the record came from no dispatch queue of this function']);
  });
});
