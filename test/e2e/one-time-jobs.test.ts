/**
 * The whole flow on the emulators, through the local runtime that drives the same handler modules
 * CDK deploys: API → DynamoDB → (scanner) → SQS delay → executor → HTTP target → stream → completion.
 */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocument } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { createJobsDirectly } from '../bench/direct-create.ts';
import { eventually, type HttpTarget, startHttpTarget } from '../support/http-target.ts';
import { localDocuments } from '../support/local-documents.ts';
import { racingScanners } from './support/racing-scanners.ts';

const HORIZON_S = 10;
/** The operator's token: the full health check answers it only. */
const ADMIN_TOKEN = 'chronos-e2e-one-time-operator';
let chronos: LocalChronos;
let target: HttpTarget;
let documents: DynamoDBDocument;

beforeAll(async () => {
  target = await startHttpTarget((path) =>
    path.startsWith('/fail') ? { status: 500, body: 'boom' } : { status: 200, body: 'done' },
  );
  // The scanner timer is effectively off: tests that need a scan invoke the scanner themselves.
  chronos = await startLocalChronos({
    port: 0,
    scannerIntervalMs: 3_600_000,
    scanHorizonSeconds: HORIZON_S,
    // These tests race scanners, not tenants: the dev tenant's in-flight quota is as large as the
    // local executor (8 workers x 10), so its bursts are not throttled by the fairness cap.
    quotas: { maxConcurrentRuns: 80 },
    adminToken: ADMIN_TOKEN,
    log: () => undefined,
  });
  documents = localDocuments(chronos.endpoints.dynamodb);
});
afterAll(async () => {
  documents?.destroy();
  await chronos?.stop();
  await target?.close();
});

async function api(method: string, path: string, body?: unknown, token: string | null = chronos.token) {
  const response = await fetch(`${chronos.apiUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const getJob = (id: string) => api('GET', `/v1/jobs/${id}`).then((r) => r.body);
const getRuns = (id: string) =>
  api('GET', `/v1/jobs/${id}/runs`).then((r) => r.body.items as Array<Record<string, unknown>>);

async function countItems(table: string): Promise<number> {
  const { Count = 0 } = await documents.send(new ScanCommand({ TableName: table, Select: 'COUNT' }));
  return Count;
}

describe('one-time jobs end to end', () => {
  it('calls an immediate job within 2 s and records a succeeded run with its timestamps', async () => {
    const created = await api('POST', '/v1/jobs', {
      name: 'now',
      target: { url: target.url('/now'), method: 'POST', headers: { 'x-team': 'blue' }, body: { hello: 'world' } },
      schedule: { type: 'once' },
    });
    expect(created.status).toBe(201);
    const jobId = created.body.jobId as string;

    const [call] = await target.waitForCalls('/now', 1, 2_000);
    expect(call?.body).toBe('{"hello":"world"}');
    expect(call?.headers['x-team']).toBe('blue');
    expect(call?.headers['idempotency-key']).toMatch(new RegExp(`^${jobId}:\\d+$`));

    const job = await eventually(
      () => getJob(jobId),
      (j) => j.status === 'COMPLETED',
      5_000,
    );
    expect(job.nextFireAt).toBeNull();
    expect(job.latestRun).toMatchObject({ status: 'SUCCEEDED', httpStatus: 200, attempt: 1 });

    const [run] = await getRuns(jobId);
    expect(run).toMatchObject({ status: 'SUCCEEDED', httpStatus: 200, attempt: 1, error: null });
    for (const field of ['scheduledFor', 'enqueuedAt', 'claimedAt', 'startedAt', 'completedAt']) {
      expect(typeof run?.[field]).toBe('string');
    }
    expect(run?.durationMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(run?.startedAt as string)).toBeGreaterThanOrEqual(Date.parse(run?.scheduledFor as string));
  });

  it('calls a job due in 5 s no earlier than its due time and within 1 s after', async () => {
    const due = Date.now() + 5_000;
    const created = await api('POST', '/v1/jobs', {
      target: { url: target.url('/in-5s') },
      schedule: { type: 'once', at: new Date(due).toISOString() },
    });
    expect(created.status).toBe(201);

    const [call] = await target.waitForCalls('/in-5s', 1, 8_000);
    expect(call?.at).toBeGreaterThanOrEqual(due);
    expect((call?.at ?? 0) - due).toBeLessThanOrEqual(1_000);
  });

  it('records a failed run with the status a failing target answered, and fails the job', async () => {
    const { body } = await api('POST', '/v1/jobs', {
      target: { url: target.url('/fail') },
      schedule: { type: 'once' },
    });

    await target.waitForCalls('/fail', 1, 2_000);
    const job = await eventually(
      () => getJob(body.jobId),
      (j) => j.status === 'FAILED',
      5_000,
    );
    expect(job.latestRun).toMatchObject({ status: 'FAILED', httpStatus: 500 });
    const [run] = await getRuns(body.jobId);
    expect(run).toMatchObject({ status: 'FAILED', httpStatus: 500, errorType: 'http_5xx', responseExcerpt: 'boom' });
  });

  it('makes exactly one call per job when three scanners race on 200 due jobs', async () => {
    // Created through the create-job use case with materialization at creation off, as a create
    // made long before its due time would be: left for the scanners. (Over the API, the due time had
    // to lie 15 s beyond the horizon for a loaded machine's 200 creates.)
    const due = Date.now() + HORIZON_S * 1_000 + 3_000;
    const ids = await createJobsDirectly(
      chronos.tenantId,
      200,
      16,
      (i) => ({
        target: { url: target.url(`/race/${i}`) },
        schedule: { type: 'once', at: new Date(due).toISOString() },
      }),
      { materializeAtCreation: false },
    );
    // The premise of the test: creation itself materialized none of them.
    for (const id of ids.slice(0, 5)) {
      expect((await getJob(id)).nextFireAt).toBe(new Date(due).toISOString());
      expect(await getRuns(id)).toEqual([]);
    }
    expect(target.calls.filter((c) => c.path.startsWith('/race/'))).toHaveLength(0);

    // Wait until the jobs fall inside the horizon, then race three scanners: three invocations at
    // once (invokeScanner() would run them one after another).
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - HORIZON_S * 1_000 - Date.now() + 200)));
    const scanners = await racingScanners();
    const { passes, attempts } = await scanners.race(3).finally(() => scanners.restore());
    // The race happened: several scanners put the same runs, and lost the conditional put.
    const puttersOf = new Map<string, Set<number>>();
    for (const a of attempts) puttersOf.set(a.runId, (puttersOf.get(a.runId) ?? new Set()).add(a.scanner));
    expect([...puttersOf.values()].filter((putters) => putters.size > 1).length).toBeGreaterThan(0);
    expect(attempts.filter((a) => !a.created).length).toBeGreaterThan(0);
    // Each run was created once, and the scanners' counts say so.
    expect(attempts.filter((a) => a.created)).toHaveLength(200);
    expect(new Set(attempts.filter((a) => a.created).map((a) => a.runId)).size).toBe(200);
    expect(passes.reduce((sum, p) => sum + p.materialized, 0)).toBe(200);

    // Each message is delayed until the due second: nothing arrives before it. Draining 200
    // simultaneous runs takes the emulators a few seconds: this test is about duplicates, not lag.
    const racing = () => target.calls.filter((c) => c.path.startsWith('/race/')).length;
    await eventually(
      async () => racing(),
      (n) => n >= 200,
      due - Date.now() + 30_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // room for any duplicate to show up
    const racePaths = target.calls.filter((c) => c.path.startsWith('/race/')).map((c) => c.path);
    expect(racePaths).toHaveLength(200);
    expect(new Set(racePaths).size).toBe(200);
    for (const call of target.calls.filter((c) => c.path.startsWith('/race/')))
      expect(call.at).toBeGreaterThanOrEqual(due);
  }, 180_000);
});

describe('API contract end to end', () => {
  it('answers invalid input with 400 naming the field, and writes nothing', async () => {
    const [jobsBefore, runsBefore] = [await countItems(chronos.tables.jobs), await countItems(chronos.tables.runs)];

    const missingUrl = await api('POST', '/v1/jobs', { target: {}, schedule: { type: 'once' } });
    const badJson = await api('POST', '/v1/jobs', '{"target":');
    const badDate = await api('POST', '/v1/jobs', {
      target: { url: target.url('/x') },
      schedule: { type: 'once', at: '31/12/2026' },
    });

    expect(missingUrl.status).toBe(400);
    expect(missingUrl.body.error.details).toContainEqual({ field: 'target.url', reason: 'is required' });
    expect(badJson.status).toBe(400);
    // API Gateway refuses a body that is not JSON before the handler (its BAD_REQUEST_BODY answer).
    expect(badJson.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'body', reason: 'Invalid request body' }],
    });
    expect(badDate.status).toBe(400);
    expect(badDate.body.error.details[0].field).toBe('schedule.at');
    expect([await countItems(chronos.tables.jobs), await countItems(chronos.tables.runs)]).toEqual([
      jobsBefore,
      runsBefore,
    ]);
  });

  it('answers 401 without a valid token, with no hint of why', async () => {
    const missing = await api('GET', '/v1/jobs/01JAAAAAAAAAAAAAAAAAAAAAAA', undefined, null);
    const wrong = await api('GET', '/v1/jobs/01JAAAAAAAAAAAAAAAAAAAAAAA', undefined, 'not-the-token-at-all');
    expect(missing.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual(missing.body);
  });

  it("answers 404 for an unknown job and for another tenant's job", async () => {
    const otherTenantJob = '01JBBBBBBBBBBBBBBBBBBBBBBB';
    await documents.put({
      TableName: chronos.tables.jobs,
      Item: {
        tenantId: 'someone-else',
        jobId: otherTenantJob,
        status: 'ACTIVE',
        schedule: { type: 'once', at: 1 },
        target: { url: 'https://x' },
      },
    });

    expect((await api('GET', '/v1/jobs/01JAAAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
    expect((await api('GET', `/v1/jobs/${otherTenantJob}`)).status).toBe(404);
    expect((await api('GET', `/v1/jobs/${otherTenantJob}/runs`)).status).toBe(404);
    expect((await api('GET', '/v1/jobs/not-an-id')).body.error.code).toBe('NOT_FOUND');
  });

  it('reports liveness without a token, and the full check to the admin token', async () => {
    expect(await api('GET', '/v1/health', undefined, null)).toEqual({ status: 200, body: { status: 'ok' } });
    // The full check needs a fresh scanner heartbeat: make sure one scan ran, whatever ran before.
    await chronos.invokeScanner();
    expect(await api('GET', '/v1/health?deep=true', undefined, ADMIN_TOKEN)).toEqual({
      status: 200,
      body: {
        status: 'ok',
        checks: { jobsTable: 'ok', runsTable: 'ok', tenantsTable: 'ok', dispatchQueue: 'ok', scannerHeartbeat: 'ok' },
        failing: [],
        checkedAt: expect.any(String),
      },
    });
  });
});
