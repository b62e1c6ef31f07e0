/**
 * The executor's lease visibility against fauxqs and the local poller: a claimed run's message is
 * hidden with the receipt handle the poller received, comes back when the lease ends if the
 * invocation dies, and is still deleted with that handle when the invocation succeeds.
 */
import {
  type ChangeMessageVisibilityBatchCommand,
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BatchLeaseVisibility, COALESCE_MS, VISIBILITY_SLACK_SECONDS } from '#adapters/sqs/batch-lease-visibility';
import type { RunningEmulator } from '#local/emulators/dynamodb-local';
import { startSqsEmulator } from '#local/emulators/fauxqs';
import { createLocalClients, type LocalClients } from '#local/emulators/local-clients';
import { onEndpoint } from '#local/provision';
import { type RunningSqsPoller, type SqsHandler, startSqsPoller } from '#local/sqs-poller';

describe('hiding claimed runs messages until their lease ends', () => {
  let emulator: RunningEmulator;
  let clients: LocalClients;
  let poller: RunningSqsPoller | undefined;

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

  it('brings a dead invocation claimed message back at the lease end, not after the queue visibility timeout', async () => {
    // Half an hour, like the deployed queue: without the change nothing would come back during the test.
    const created = await clients.sqs.send(
      new CreateQueueCommand({ QueueName: 'lease-visibility', Attributes: { VisibilityTimeout: '1800' } }),
    );
    const url = onEndpoint(created.QueueUrl, emulator.endpoint);
    const deliveries: Array<{ body: string; at: number; receiveCount: string }> = [];
    let claimedAt = 0;
    const handler: SqsHandler = async (event) => {
      const visibility = new BatchLeaseVisibility(clients.sqs, url, event.Records);
      for (const record of event.Records) {
        deliveries.push({ body: record.body, at: Date.now(), receiveCount: record.attributes.ApproximateReceiveCount });
        const lease = visibility.forMessage(record, () => undefined);
        // 'claimed' is claimed with a one-second lease on its first delivery; 'finished' ends without a claim.
        if (record.body === 'claimed' && record.attributes.ApproximateReceiveCount === '1') {
          claimedAt = Date.now();
          lease.afterLease(claimedAt + 1_000);
        } else lease.settle();
      }
      await visibility.done();
      // The first invocation dies holding the claim: nothing is deleted.
      if (deliveries.length <= 2) throw new Error('executor crashed');
      return { batchItemFailures: [] };
    };
    await clients.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: ['claimed', 'finished'].map((body) => ({ Id: body, MessageBody: body })),
      }),
    );
    const { Attributes } = await clients.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
    );
    poller = startSqsPoller({
      sqs: clients.sqs,
      queueUrl: url,
      queueArn: Attributes?.QueueArn as string,
      handler,
      concurrency: 1,
      log: () => undefined,
    });

    await expect.poll(() => deliveries.filter((d) => d.body === 'claimed').length, { timeout: 10_000 }).toBe(2);
    const again = deliveries.filter((d) => d.body === 'claimed')[1];
    expect(again?.receiveCount).toBe('2');
    // Lease (1 s, rounded up) plus the slack; never before the lease has ended.
    expect((again?.at ?? 0) - claimedAt).toBeGreaterThanOrEqual(1_000);
    expect((again?.at ?? 0) - claimedAt).toBeLessThan((1 + VISIBILITY_SLACK_SECONDS) * 1_000 + 2_000);
    // The second invocation succeeded: its delete with the handle it received took the message away,
    // while the unclaimed one stays hidden for the queue's half hour.
    await expect
      .poll(async () => {
        const { Attributes: counts } = await clients.sqs.send(
          new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }),
        );
        return [counts?.ApproximateNumberOfMessages, counts?.ApproximateNumberOfMessagesNotVisible];
      })
      .toEqual(['0', '1']);
    expect(deliveries.filter((d) => d.body === 'finished')).toHaveLength(1);
  }, 20_000);
});

describe('a record that failed before its call', () => {
  let emulator: RunningEmulator;
  let clients: LocalClients;

  beforeAll(async () => {
    emulator = await startSqsEmulator();
    clients = createLocalClients({ dynamodb: 'http://127.0.0.1:1', sqs: emulator.endpoint });
  });
  afterAll(async () => {
    clients?.destroy();
    await emulator?.stop();
  });

  it('comes back within seconds, though claimed neighbours are hidden for their lease and the queue for half an hour', async () => {
    const created = await clients.sqs.send(
      new CreateQueueCommand({ QueueName: 'come-back-soon', Attributes: { VisibilityTimeout: '1800' } }),
    );
    const url = onEndpoint(created.QueueUrl, emulator.endpoint);
    await clients.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: ['failed', 'claimed'].map((body) => ({ Id: body, MessageBody: body })),
      }),
    );
    const received = await clients.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    const records = (received.Messages ?? []).map((m) => ({
      messageId: m.MessageId as string,
      receiptHandle: m.ReceiptHandle as string,
      body: m.Body,
    }));
    expect(records).toHaveLength(2);
    const visibility = new BatchLeaseVisibility(clients.sqs, url, records);
    const failedAt = Date.now();
    for (const record of records) {
      const lease = visibility.forMessage(record, () => undefined);
      // Both claim (the failing one as its claim write is made), then one fails before its call.
      lease.afterLease(Date.now() + 60_000);
      if (record.body === 'failed') lease.comeBackIn(1);
    }
    await visibility.done();

    let again: string | undefined;
    while (again === undefined && Date.now() - failedAt < 8_000) {
      const next = await clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 1 }));
      again = next.Messages?.[0]?.Body;
    }
    expect(again).toBe('failed');
    expect(Date.now() - failedAt).toBeLessThan(8_000);
  }, 20_000);
});

describe('one visibility change per batch, as a rule', () => {
  type Input = ChangeMessageVisibilityBatchCommand['input'];
  function recordingClient(failIds: string[] = []) {
    const calls: Input[] = [];
    const client = {
      send: async (command: ChangeMessageVisibilityBatchCommand) => {
        calls.push(command.input);
        return {
          Failed: failIds.map((Id) => ({ Id, Code: 'ReceiptHandleIsInvalid', Message: 'gone', SenderFault: true })),
        };
      },
    } as unknown as SQSClient;
    return { client, calls };
  }
  const record = (n: number) => ({ messageId: `m${n}`, receiptHandle: `h${n}` }) as SQSRecord;
  const NOW = 1_000_000;

  it('waits for every record, then hides the still running ones until the latest lease of the batch', async () => {
    const { client, calls } = recordingClient();
    const visibility = new BatchLeaseVisibility(
      client,
      'queue-url',
      [record(1), record(2), record(3), record(4)],
      () => NOW,
    );
    const [a, b, c, d] = [1, 2, 3, 4].map((n) => visibility.forMessage(record(n), () => undefined));

    a?.afterLease(NOW + 40_000);
    b?.afterLease(NOW + 9_500);
    c?.settle(); // no claim
    expect(calls).toEqual([]);
    d?.afterLease(NOW + 20_000);
    await visibility.done();

    const seconds = 40 + VISIBILITY_SLACK_SECONDS;
    expect(calls).toEqual([
      {
        QueueUrl: 'queue-url',
        Entries: [
          { Id: '0', ReceiptHandle: 'h1', VisibilityTimeout: seconds },
          { Id: '1', ReceiptHandle: 'h2', VisibilityTimeout: seconds },
          { Id: '2', ReceiptHandle: 'h4', VisibilityTimeout: seconds },
        ],
      },
    ]);
  });

  it('does not hold claimed messages back for a record slow to claim, and extends them with its later lease', async () => {
    const { client, calls } = recordingClient();
    const visibility = new BatchLeaseVisibility(client, 'queue-url', [record(1), record(2)], () => NOW);
    const [a, slow] = [1, 2].map((n) => visibility.forMessage(record(n), () => undefined));

    a?.afterLease(NOW + 10_000);
    await new Promise((resolve) => setTimeout(resolve, COALESCE_MS + 30));
    expect(calls.map((c) => c.Entries)).toEqual([
      [{ Id: '0', ReceiptHandle: 'h1', VisibilityTimeout: 10 + VISIBILITY_SLACK_SECONDS }],
    ]);

    slow?.afterLease(NOW + 30_000);
    await visibility.done();
    expect(calls.map((c) => c.Entries)).toHaveLength(2);
    expect(calls[1]?.Entries).toEqual([
      { Id: '0', ReceiptHandle: 'h1', VisibilityTimeout: 30 + VISIBILITY_SLACK_SECONDS },
      { Id: '1', ReceiptHandle: 'h2', VisibilityTimeout: 30 + VISIBILITY_SLACK_SECONDS },
    ]);
  });

  it('makes no call when no run was claimed or every claimed run already finished', async () => {
    const { client, calls } = recordingClient();
    const visibility = new BatchLeaseVisibility(client, 'queue-url', [record(1), record(2)], () => NOW);
    const [a, b] = [1, 2].map((n) => visibility.forMessage(record(n), () => undefined));
    a?.afterLease(NOW + 5_000);
    a?.settle(); // finished before the last record reported: its message goes with the batch
    b?.settle();
    await visibility.done();
    expect(calls).toEqual([]);
  });

  it('reports a message SQS refused to its own record, and never throws', async () => {
    const { client } = recordingClient(['1']);
    const visibility = new BatchLeaseVisibility(client, 'queue-url', [record(1), record(2)], () => NOW);
    const failures: string[] = [];
    for (const n of [1, 2])
      visibility.forMessage(record(n), (reason) => failures.push(`m${n} ${reason}`)).afterLease(NOW);
    await visibility.done();
    expect(failures).toEqual(['m2 ReceiptHandleIsInvalid: gone']);
  });

  it('changes a record that failed before its call on its own, after any change that still hides it', async () => {
    const { client, calls } = recordingClient();
    const visibility = new BatchLeaseVisibility(client, 'queue-url', [record(1), record(2)], () => NOW);
    const [a, failing] = [1, 2].map((n) => visibility.forMessage(record(n), () => undefined));

    a?.afterLease(NOW + 40_000);
    failing?.afterLease(NOW + 40_000);
    failing?.comeBackIn(2);
    failing?.settle();
    await visibility.done();

    expect(calls.map((c) => c.Entries)).toEqual([
      [
        { Id: '0', ReceiptHandle: 'h1', VisibilityTimeout: 40 + VISIBILITY_SLACK_SECONDS },
        { Id: '1', ReceiptHandle: 'h2', VisibilityTimeout: 40 + VISIBILITY_SLACK_SECONDS },
      ],
      [{ Id: '0', ReceiptHandle: 'h2', VisibilityTimeout: 2 }],
    ]);
  });
});
