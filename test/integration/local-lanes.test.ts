/**
 * The priority lanes in the local runtime (issue #22), with the real handlers: each lane's
 * dispatch queue and DLQ provisioned alike, named to the functions as CDK names them, consumed by
 * an executor poller of its own; and local IAM knowing the lanes' queues as the template's, so a
 * function without a lane's SendMessage grant is refused there as on AWS.
 *
 * Which lane a run is sent to is the handlers' business (they read DISPATCH_QUEUE_URL_*); here a
 * run's message is moved to a lane's queue by hand: the executor is the same for every lane.
 */
import {
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqsClient } from '#adapters/aws-clients';
import { ENV } from '#adapters/environment';
import { OBSERVABILITY_ENV } from '#adapters/observability-environment';
import { AccessDeniedException } from '#local/aws-fidelity/access-denied';
import { type LocalChronos, type LocalChronosOptions, startLocalChronos } from '#local/chronos-local';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators/local-clients';
import { runInInvocationScope } from '#local/invoke-store';
import { apiAs } from '../e2e/support/tenant-api.ts';
import { eventually, type HttpTarget, startHttpTarget } from '../support/http-target.ts';

/** Both instances: the handlers' environment must be the same in one process (chronos-local.ts). */
const SHARED = { namePrefix: 'lanes-', laneConcurrency: { high: 3, low: 2 } } satisfies LocalChronosOptions;
const EXECUTOR_ONLY = { api: false, scanner: false, completion: false, deadLetters: false, notifier: false };

let chronos: LocalChronos;
let target: HttpTarget;
let sqs: SQSClient;

beforeAll(async () => {
  target = await startHttpTarget(() => ({ status: 200, body: 'ok' }));
  // No executor here: a run's message waits in the normal lane's queue until this test moves it.
  chronos = await startLocalChronos({
    ...SHARED,
    port: 0,
    scannerIntervalMs: 3_600_000,
    components: { executor: false },
    log: () => undefined,
  });
  sqs = new SQSClient({ endpoint: chronos.endpoints.sqs, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
}, 120_000);

afterAll(async () => {
  sqs?.destroy();
  await chronos?.stop();
  await target?.close();
});

const attributesOf = async (url: string) =>
  (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }))).Attributes ?? {};

describe('the lanes locally', () => {
  it("provisions each lane's dispatch queue as the normal lane's, redriving to its own dead-letter queue", async () => {
    const { queues } = chronos;
    expect([queues.dispatchHigh.name, queues.deadLetterHigh.name]).toEqual([
      'lanes-dispatch-high',
      'lanes-dispatch-high-dlq',
    ]);
    expect([queues.dispatchLow.name, queues.deadLetterLow.name]).toEqual([
      'lanes-dispatch-low',
      'lanes-dispatch-low-dlq',
    ]);
    const normal = await attributesOf(queues.dispatch.url);
    for (const [dispatch, deadLetter] of [
      [queues.dispatchHigh, queues.deadLetterHigh],
      [queues.dispatchLow, queues.deadLetterLow],
    ] as const) {
      const attributes = await attributesOf(dispatch.url);
      expect(attributes.VisibilityTimeout, dispatch.name).toBe(normal.VisibilityTimeout);
      expect(JSON.parse(attributes.RedrivePolicy ?? '{}'), dispatch.name).toEqual({
        deadLetterTargetArn: deadLetter.arn,
        maxReceiveCount: JSON.parse(normal.RedrivePolicy ?? '{}').maxReceiveCount,
      });
      expect((await attributesOf(deadLetter.url)).MessageRetentionPeriod).toBe(String(14 * 24 * 3600));
    }
  });

  it("names every lane's queues to the functions, under the names CDK sets", () => {
    const { queues } = chronos;
    expect(process.env[ENV.dispatchQueueUrl]).toBe(queues.dispatch.url);
    expect(process.env[ENV.dispatchQueueUrlHigh]).toBe(queues.dispatchHigh.url);
    expect(process.env[ENV.dispatchQueueUrlLow]).toBe(queues.dispatchLow.url);
    expect(process.env[OBSERVABILITY_ENV.monitoredDispatchQueueUrlHigh]).toBe(queues.dispatchHigh.url);
    expect(process.env[OBSERVABILITY_ENV.monitoredDeadLetterQueueUrlHigh]).toBe(queues.deadLetterHigh.url);
    expect(process.env[OBSERVABILITY_ENV.monitoredDispatchQueueUrlLow]).toBe(queues.dispatchLow.url);
    expect(process.env[OBSERVABILITY_ENV.monitoredDeadLetterQueueUrlLow]).toBe(queues.deadLetterLow.url);
    // Every lane's executor workers together (8 normal + 3 high + 2 low) × the batch size.
    expect(process.env[ENV.executorMaxCallsInFlight]).toBe(String((8 + 3 + 2) * 10));
  });

  it("runs a run whose message is on the high lane's queue, and one on the low lane's, through those lanes' executor pollers", async () => {
    const api = apiAs(chronos.apiUrl, chronos.token);
    const lanes = [
      ['high', 'dispatchHigh'],
      ['low', 'dispatchLow'],
    ] as const;
    const jobs: Record<string, string> = {};
    for (const [lane, queue] of lanes) {
      const created = await api('POST', '/v1/jobs', {
        name: `on-the-${lane}-lane`,
        target: { url: target.url(`/lane-${lane}`), method: 'POST' },
        schedule: { type: 'once' },
      });
      expect(created.status).toBe(201);
      jobs[lane] = created.body.jobId;
      // The create sent the run to the normal lane's queue; no executor runs yet. Move it to the lane's.
      const message = await eventually(
        async () =>
          (
            await sqs.send(
              new ReceiveMessageCommand({
                QueueUrl: chronos.queues.dispatch.url,
                WaitTimeSeconds: 1,
                MaxNumberOfMessages: 1,
              }),
            )
          ).Messages?.[0],
        (found) => found !== undefined,
        10_000,
      );
      if (!message?.Body || !message.ReceiptHandle) throw new Error('no dispatch message for the new run');
      expect(JSON.parse(message.Body)).toMatchObject({ jobId: jobs[lane] });
      await sqs.send(new SendMessageCommand({ QueueUrl: chronos.queues[queue].url, MessageBody: message.Body }));
      await sqs.send(
        new DeleteMessageCommand({ QueueUrl: chronos.queues.dispatch.url, ReceiptHandle: message.ReceiptHandle }),
      );
    }
    // Nothing is left for the normal lane's poller: only the high and low pollers can run these.
    expect(Number((await attributesOf(chronos.queues.dispatch.url)).ApproximateNumberOfMessages)).toBe(0);
    expect(target.calls).toEqual([]);

    const executor = await startLocalChronos({
      ...SHARED,
      endpoints: chronos.endpoints,
      components: EXECUTOR_ONLY,
      log: () => undefined,
    });
    try {
      for (const [lane] of lanes) {
        await target.waitForCalls(`/lane-${lane}`, 1, 20_000);
        const job = await eventually(
          () => api('GET', `/v1/jobs/${jobs[lane]}`),
          (answer) => answer.body?.status === 'COMPLETED',
          15_000,
        );
        expect(job.body.status, lane).toBe('COMPLETED');
        const runs = await api('GET', `/v1/jobs/${jobs[lane]}/runs`);
        expect(
          runs.body.items.map((run: { status: string }) => run.status),
          lane,
        ).toEqual(['SUCCEEDED']);
      }
    } finally {
      await executor.stop();
    }
    for (const [lane] of lanes) expect(target.callsTo(`/lane-${lane}`), lane).toHaveLength(1);
  });
});

describe('local IAM on the lanes', () => {
  /** Sends to `url` as an invocation of the local function `functionName`, with the handlers' own client. */
  const sendAs = (functionName: string, url: string) => {
    const client = createSqsClient();
    return runInInvocationScope(
      `req-${functionName}`,
      () => client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: '{}' })),
      functionName,
    ).finally(() => client.destroy());
  };

  it("lets the functions that send runs send to every lane's queue, and refuses one without the grant", async () => {
    for (const queue of [chronos.queues.dispatchHigh, chronos.queues.dispatchLow]) {
      // Granted in the template (the scanner sends runs; the completion handler sends retries).
      await expect(sendAs('scanner', queue.url)).resolves.toMatchObject({ MessageId: expect.any(String) });
      await expect(sendAs('completion', queue.url)).resolves.toMatchObject({ MessageId: expect.any(String) });
      // The notifier and a read-only API function never send runs: AccessDenied, naming the lane's queue.
      for (const fn of ['notifier', 'api-get-job']) {
        const denied = sendAs(fn, queue.url);
        await expect(denied).rejects.toBeInstanceOf(AccessDeniedException);
        await expect(denied).rejects.toThrow(`sqs:SendMessage on resource: ${queue.arn}`);
      }
    }
  });
});
