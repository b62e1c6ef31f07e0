import { ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoRunRepository } from '#adapters/dynamodb/run-repository';
import { SqsRunDispatcher } from '#adapters/sqs/run-dispatcher';
import type { DispatchMessage, Run } from '#core/model';
import type { RunRepository } from '#core/ports';
import { materializeOccurrences } from '#core/use-cases/materialize-occurrences';
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

  it('holds a delayed message back until its delay has passed', async () => {
    const queue = aws.resources.queues.dispatch.url;
    const dispatcher = new SqsRunDispatcher(aws.sqs, queue);
    const sentAt = Date.now();

    await dispatcher.dispatch([{ message: message(99), releaseAt: sentAt + 2_000 }]);

    expect(await receiveAll(aws.sqs, queue, 1_200)).toEqual([]);
    const later = await receiveAll(aws.sqs, queue, 2_500);
    expect(later).toEqual([message(99)]);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(2_000);
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
