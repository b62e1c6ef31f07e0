import { ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqsRunDispatcher } from '#adapters/sqs/run-dispatcher';
import type { DispatchMessage } from '#core/model';
import { type EmulatedAws, startEmulatedAws } from '../support/emulated-aws.ts';

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

  it('fails loudly when the queue does not exist', async () => {
    const dispatcher = new SqsRunDispatcher(aws.sqs, `${aws.resources.queues.dispatch.url}-missing`);
    await expect(dispatcher.dispatch([{ message: message(1), releaseAt: Date.now() }])).rejects.toThrow();
  });
});
