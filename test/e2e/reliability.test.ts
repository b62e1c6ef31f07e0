/**
 * Execution reliability end to end: retries with backoff, permanent failures, timeouts, delivery
 * semantics, crash recovery through the message that comes back when a lease ends, dead letters and
 * their re-drive.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocument } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runIdOf } from '#core/run-id';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { eventually, type HttpTarget, startHttpTarget } from '../support/http-target.ts';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
let chronos: LocalChronos;
let target: HttpTarget;
let documents: DynamoDBDocument;
let sqs: SQSClient;
const hits = new Map<string, number>();

beforeAll(async () => {
  target = await startHttpTarget((path) => {
    const n = (hits.get(path) ?? 0) + 1;
    hits.set(path, n);
    if (path === '/flaky') return n <= 2 ? { status: 500, body: `failure ${n}` } : { status: 200 };
    if (path.startsWith('/always-500')) return { status: 500 };
    if (path === '/missing') return { status: 404 };
    if (path === '/slow') return { status: 200, delayMs: 3_000 };
    if (path === '/slower-than-two-visibility-timeouts') return { status: 200, delayMs: 7_000 };
    return { status: 200 };
  });
  chronos = await startLocalChronos({
    port: 0,
    scannerIntervalMs: 3_600_000,
    scanHorizonSeconds: 10,
    visibilityTimeoutSeconds: 3,
    maxReceiveCount: 2,
    // Short leases: a message handed back for another executor's live lease returns when a lease
    // like its own would have ended (the poison-message test waits out two of them).
    leaseMarginSeconds: 5,
    log: () => undefined,
  });
  documents = DynamoDBDocument.from(
    new DynamoDBClient({ endpoint: chronos.endpoints.dynamodb, region: 'us-east-1', credentials }),
  );
  sqs = new SQSClient({ endpoint: chronos.endpoints.sqs, region: 'us-east-1', credentials });
});
afterAll(async () => {
  documents?.destroy();
  sqs?.destroy();
  await chronos?.stop();
  await target?.close();
});

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(`${chronos.apiUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${chronos.token}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function createJob(body: Record<string, unknown>): Promise<string> {
  const { status, body: job } = await api('POST', '/v1/jobs', { schedule: { type: 'once' }, ...body });
  expect(status).toBe(201);
  return job.jobId;
}

const runsOf = async (jobId: string) =>
  (await api('GET', `/v1/jobs/${jobId}/runs`)).body.items as Array<Record<string, unknown>>;
const jobOf = async (jobId: string) => (await api('GET', `/v1/jobs/${jobId}`)).body;

describe('retries', () => {
  it('retries a failing call with backoff until it succeeds, every attempt its own run with one idempotency key', async () => {
    const jobId = await createJob({
      target: { url: target.url('/flaky') },
      retry: { maxAttempts: 3, initialDelaySeconds: 1, multiplier: 2 },
    });

    const calls = await target.waitForCalls('/flaky', 3, 15_000);
    const job = await eventually(
      () => jobOf(jobId),
      (j) => j.status === 'COMPLETED',
      5_000,
    );

    expect(new Set(calls.map((c) => c.headers['idempotency-key'])).size).toBe(1);
    // Full jitter: each wait is at most the cap (1 s, then 2 s), plus dispatch slack.
    expect((calls[1]?.at ?? 0) - (calls[0]?.at ?? 0)).toBeLessThan(1_000 + 1_500);
    expect((calls[2]?.at ?? 0) - (calls[1]?.at ?? 0)).toBeLessThan(2_000 + 1_500);
    const runs = await runsOf(jobId);
    expect(runs.map((r) => [r.attempt, r.status, r.httpStatus])).toEqual([
      [3, 'SUCCEEDED', 200],
      [2, 'FAILED', 500],
      [1, 'FAILED', 500],
    ]);
    expect(job.latestRun).toMatchObject({ attempt: 3, status: 'SUCCEEDED' });
  }, 30_000);

  it('fails the job after maxAttempts and posts a summary to its onFailure URL', async () => {
    const jobId = await createJob({
      target: { url: target.url('/always-500/a') },
      retry: { maxAttempts: 2, initialDelaySeconds: 1 },
      onFailure: { url: target.url('/on-failure') },
    });

    await eventually(
      () => jobOf(jobId),
      (j) => j.status === 'FAILED',
      12_000,
    );
    const [summary] = await target.waitForCalls('/on-failure', 1, 5_000);

    expect(target.callsTo('/always-500/a')).toHaveLength(2);
    expect(JSON.parse(summary?.body ?? '{}')).toMatchObject({
      event: 'occurrence.failed',
      jobId,
      attempts: 2,
      lastRun: { httpStatus: 500, errorType: 'http_5xx' },
    });
  }, 30_000);

  it('does not retry a 404, and never retries an at-most-once job', async () => {
    const notFound = await createJob({ target: { url: target.url('/missing') } });
    const atMostOnce = await createJob({ target: { url: target.url('/always-500/amo') }, delivery: 'at-most-once' });

    await eventually(
      () => jobOf(notFound),
      (j) => j.status === 'FAILED',
      5_000,
    );
    await eventually(
      () => jobOf(atMostOnce),
      (j) => j.status === 'FAILED',
      5_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 2_500)); // a retry would have come by now

    expect(target.callsTo('/missing')).toHaveLength(1);
    expect(target.callsTo('/always-500/amo')).toHaveLength(1);
    expect((await runsOf(notFound))[0]).toMatchObject({ status: 'FAILED', errorType: 'http_4xx' });
  }, 20_000);

  it('ends a call that outlives its timeout as TIMED_OUT and retries it', async () => {
    const jobId = await createJob({
      target: { url: target.url('/slow') },
      timeoutSeconds: 1,
      retry: { maxAttempts: 2, initialDelaySeconds: 1 },
    });

    await eventually(
      () => jobOf(jobId),
      (j) => j.status === 'FAILED',
      15_000,
    );

    const runs = await runsOf(jobId);
    expect(runs.map((r) => [r.attempt, r.status, r.errorType])).toEqual([
      [2, 'TIMED_OUT', 'timeout'],
      [1, 'TIMED_OUT', 'timeout'],
    ]);
  }, 30_000);
});

describe('crash recovery and dead letters', () => {
  async function futureJob(path: string): Promise<string> {
    // Due far beyond the horizon: the test plants the run itself. Recurring: a one-time job's run
    // for another time than its `at` is skipped as superseded, and the planted run is due now.
    return createJob({
      target: { url: target.url(path) },
      timeoutSeconds: 1,
      schedule: { type: 'interval', everySeconds: 3_600, startAt: new Date(Date.now() + 3_600_000).toISOString() },
    });
  }

  async function plantRunningRun(jobId: string, leaseExpiresAt: number) {
    const scheduledFor = Date.now() - 1_000;
    const key = { tenantId: chronos.tenantId, jobId, scheduledFor, attempt: 1 };
    await documents.put({
      TableName: chronos.tables.runs,
      Item: {
        pk: `${chronos.tenantId}#${jobId}`,
        sk: `${String(scheduledFor).padStart(13, '0')}#001`,
        ...key,
        runId: runIdOf(key),
        status: 'RUNNING',
        createdAt: scheduledFor,
        leaseOwner: 'crashed-executor',
        leaseExpiresAt,
      },
    });
    return { ...key, runId: runIdOf(key) };
  }

  it('takes over a run whose executor died when its message comes back after the lease, as a recovery', async () => {
    const jobId = await futureJob('/recovered');
    const run = await plantRunningRun(jobId, Date.now() - 1);
    // What the dead executor left: its message, hidden until the lease ended, now visible again.
    await sqs.send(new SendMessageCommand({ QueueUrl: chronos.queues.dispatch.url, MessageBody: JSON.stringify(run) }));

    await target.waitForCalls('/recovered', 1, 5_000);
    const [recovered] = await eventually(
      () => runsOf(jobId),
      (runs) => runs[0]?.status === 'SUCCEEDED',
      5_000,
    );
    expect(recovered).toMatchObject({ runId: run.runId, status: 'SUCCEEDED', recoveries: 1 });
  }, 20_000);

  it('keeps a claimed run message hidden for its lease, however short the queue visibility timeout', async () => {
    // The queue here hides a message for 3 s and dead-letters it on its third receive: a call of 7 s
    // whose message came back every 3 s would be dead-lettered mid-call. Hidden until the lease
    // ends (15 s + the 5 s margin), it is received once and deleted when the call is done.
    const jobId = await createJob({
      target: { url: target.url('/slower-than-two-visibility-timeouts') },
      timeoutSeconds: 15,
    });

    await target.waitForCalls('/slower-than-two-visibility-timeouts', 1, 5_000);
    const [run] = await eventually(
      () => runsOf(jobId),
      (runs) => runs[0]?.status !== 'QUEUED' && runs[0]?.status !== 'RUNNING',
      15_000,
    );
    expect(run).toMatchObject({ status: 'SUCCEEDED', attempt: 1 });
    expect(run?.recoveries ?? 0).toBe(0);
    expect(hits.get('/slower-than-two-visibility-timeouts')).toBe(1);
  }, 30_000);

  it('records a poison message as a DEAD_LETTERED run, lists it, and re-drives it on request', async () => {
    const jobId = await futureJob('/redriven');
    // A run held under a live lease for an hour: every delivery of its message is handed back, and
    // comes back once a lease of its own (1 s + the 5 s margin) would have ended.
    const run = await plantRunningRun(jobId, Date.now() + 3_600_000);
    await sqs.send(new SendMessageCommand({ QueueUrl: chronos.queues.dispatch.url, MessageBody: JSON.stringify(run) }));

    const [dead] = await eventually(
      () => runsOf(jobId),
      (runs) => runs[0]?.status === 'DEAD_LETTERED',
      35_000,
    );
    expect(dead).toMatchObject({ errorType: 'dead_letter' });
    expect(dead?.error).toMatch(/^dispatch message moved to the dead-letter queue .*\(receive count [2-9]\)$/);
    const listed = await api('GET', '/v1/dead-letters');
    expect(listed.body.items.map((r: { runId: string }) => r.runId)).toContain(run.runId);

    const redrive = await api('POST', `/v1/runs/${run.runId}/retry`);
    expect(redrive.status).toBe(202);
    expect(redrive.body).toMatchObject({ attempt: 2, status: 'QUEUED' });
    await target.waitForCalls('/redriven', 1, 5_000);
    expect((await api('POST', `/v1/runs/${run.runId}/retry`)).status).toBe(409);
    expect((await api('POST', '/v1/runs/not-a-run/retry')).status).toBe(404);
  }, 60_000);
});
