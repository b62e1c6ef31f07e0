import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toRunItem } from '#adapters/dynamodb/run-item';
import type { DispatchMessage, Run } from '#core/model';
import { resendRestoredRuns } from '#local/restored-runs';
import { type EmulatedAws, startEmulatedAws } from '../support/emulated-aws.ts';

let aws: EmulatedAws;
beforeAll(async () => {
  aws = await startEmulatedAws();
});
afterAll(() => aws?.stop());

describe('resendRestoredRuns (npm start -- --data on a restart: the queue was lost, the runs were kept)', () => {
  it('sends every QUEUED run at its release and every RUNNING run at once; leaves finished runs and far-parked retries', async () => {
    const now = Date.now();
    const run = (jobId: string, fields: Partial<Run>): Run => ({
      tenantId: 'tenant-restored',
      jobId,
      scheduledFor: now - 60_000,
      attempt: 0,
      runId: `run-${jobId}`,
      status: 'QUEUED',
      createdAt: now - 120_000,
      ...fields,
    });
    const runs = [
      run('due-soon', { scheduledFor: now + 3_000 }),
      run('overdue', {}),
      run('running', { status: 'RUNNING', leaseOwner: 'gone', leaseExpiresAt: now - 1_000 }),
      run('succeeded', { status: 'SUCCEEDED', completedAt: now - 30_000 }),
      run('failed', { status: 'FAILED', completedAt: now - 30_000 }),
      // A retry parked beyond SQS's 15-minute delay: the sweep sends it once within reach.
      run('parked', { attempt: 1, availableAt: now + 2 * 3600_000 }),
    ];
    for (const r of runs) {
      await aws.documents.send(new PutCommand({ TableName: aws.resources.tables.runs, Item: toRunItem(r) }));
    }

    const restored = await resendRestoredRuns({
      dynamodb: aws.dynamodb,
      sqs: aws.sqs,
      runsTable: aws.resources.tables.runs,
      dispatchQueueUrl: aws.resources.queues.dispatch.url,
      now,
    });
    expect(restored).toEqual({ queued: 2, running: 1 });

    const received = new Map<string, { at: number; message: DispatchMessage }>();
    const deadline = Date.now() + 8_000;
    while (Date.now() < deadline && received.size < 3) {
      const { Messages = [] } = await aws.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: aws.resources.queues.dispatch.url,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
        }),
      );
      for (const m of Messages) {
        const message = JSON.parse(m.Body ?? '{}') as DispatchMessage;
        received.set(message.jobId, { at: Date.now(), message });
      }
    }
    expect([...received.keys()].sort()).toEqual(['due-soon', 'overdue', 'running']);
    expect(received.get('running')?.message).toEqual({
      tenantId: 'tenant-restored',
      jobId: 'running',
      scheduledFor: now - 60_000,
      attempt: 0,
      runId: 'run-running',
    });
    // At its release, not before (SQS delays in whole seconds: one second of slack).
    expect(received.get('due-soon')?.at).toBeGreaterThanOrEqual(now + 2_000);
    expect(received.get('overdue')?.at).toBeLessThan(now + 2_000);
    expect(received.get('running')?.at).toBeLessThan(now + 2_000);
  });

  it("sends a run back to its own priority lane's queue", async () => {
    const now = Date.now();
    const laneRun = (jobId: string, priority: 'high' | 'low'): Run => ({
      tenantId: 'tenant-lanes',
      jobId,
      scheduledFor: now - 60_000,
      attempt: 0,
      runId: `run-${jobId}`,
      status: 'QUEUED',
      createdAt: now - 120_000,
      priority,
    });
    for (const r of [laneRun('urgent', 'high'), laneRun('bulk', 'low')]) {
      await aws.documents.send(new PutCommand({ TableName: aws.resources.tables.runs, Item: toRunItem(r) }));
    }
    const { queues } = aws.resources;
    await resendRestoredRuns({
      dynamodb: aws.dynamodb,
      sqs: aws.sqs,
      runsTable: aws.resources.tables.runs,
      dispatchQueueUrl: queues.dispatch.url,
      laneQueueUrls: { high: queues.dispatchHigh.url, low: queues.dispatchLow.url },
      now,
    });
    const jobsOn = async (queueUrl: string) => {
      const { Messages = [] } = await aws.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      return Messages.map((m) => (JSON.parse(m.Body ?? '{}') as DispatchMessage).jobId).sort();
    };
    expect(await jobsOn(queues.dispatchHigh.url)).toEqual(['urgent']);
    expect(await jobsOn(queues.dispatchLow.url)).toEqual(['bulk']);
  });
});
