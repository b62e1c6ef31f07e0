/**
 * Monitoring end to end through the local runtime: per-run timings on the run history, stats that
 * match the runs table (finished runs, and runs due but not started), the system view of the
 * dispatch queue, and the health check.
 *
 * The executor runs in a second local Chronos on the same emulators (same names and settings, so
 * the same handler environment), which the last test stops to leave released messages pending:
 * every test that needs runs executed comes before it.
 *
 * Percentile tolerance: the stats keep latencies as histogram counts (fixed bucket bounds), so a
 * percentile is reported as the upper bound of the bucket it falls in. "Matches the runs" means:
 * the exact nearest-rank percentile of the runs' start lags lies in that same bucket, i.e.
 * upperBoundOf(bucketOf(exact)) equals the reported value. Counts must match exactly.
 */
import type { DynamoDBDocument } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobCountsKey } from '#adapters/dynamodb/metrics-keys';
import { tenantKeys } from '#adapters/dynamodb/tenant-keys';
import { bucketOf, exactPercentile, upperBoundOf } from '#core/metrics/lag-histogram';
import type { Run } from '#core/model';
import { startableAtOf } from '#core/run-timing';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { eventually, type HttpTarget, startHttpTarget } from '../support/http-target.ts';
import { localDocuments } from '../support/local-documents.ts';
import { apiAs } from './support/tenant-api.ts';

const ADMIN_TOKEN = 'chronos-e2e-operator-token';
const HOLD_MS = 10_000;
let chronos: LocalChronos;
let executor: LocalChronos;
let target: HttpTarget;
let documents: DynamoDBDocument;
const hits = new Map<string, number>();

beforeAll(async () => {
  target = await startHttpTarget((path) => {
    const n = (hits.get(path) ?? 0) + 1;
    hits.set(path, n);
    if (path.startsWith('/fail')) return { status: 500 };
    if (path.startsWith('/flaky')) return n === 1 ? { status: 503 } : { status: 200 };
    if (path.startsWith('/slow')) return { status: 200, delayMs: 300 };
    // The first call holds its tenant's only slot for a while; the runs after it wait, queued.
    if (path.startsWith('/hold')) return n === 1 ? { status: 200, delayMs: HOLD_MS } : { status: 200 };
    return { status: 200 };
  });
  const shared = { scanHorizonSeconds: 20, adminToken: ADMIN_TOKEN, log: () => undefined };
  chronos = await startLocalChronos({
    ...shared,
    port: 0,
    scannerIntervalMs: 3_600_000,
    components: { executor: false },
  });
  executor = await startLocalChronos({
    ...shared,
    endpoints: chronos.endpoints,
    components: { api: false, scanner: false, completion: false, deadLetters: false },
  });
  documents = localDocuments(chronos.endpoints.dynamodb);
});
afterAll(async () => {
  documents?.destroy();
  await executor?.stop();
  await chronos?.stop();
  await target?.close();
});

async function api(method: string, path: string, body?: unknown, token = chronos.token) {
  const response = await fetch(`${chronos.apiUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function createJob(body: Record<string, unknown>): Promise<string> {
  const { status, body: job } = await api('POST', '/v1/jobs', { schedule: { type: 'once' }, ...body });
  expect(status, JSON.stringify(job)).toBe(201);
  return job.jobId;
}

async function allRuns(tenantId = chronos.tenantId): Promise<Run[]> {
  const { Items = [] } = await documents.scan({ TableName: chronos.tables.runs });
  return (Items as Run[]).filter((r) => r.tenantId === tenantId && r.runId !== undefined);
}

const jobIds: string[] = [];

describe('stats after a mix of succeeding, failing and retried jobs', () => {
  beforeAll(async () => {
    const once = (path: string, extra: Record<string, unknown> = {}) =>
      createJob({ target: { url: target.url(path) }, ...extra });
    jobIds.push(
      ...(await Promise.all([
        once('/ok/1'),
        once('/ok/2'),
        once('/slow/1'),
        once('/fail/1', { retry: { maxAttempts: 1 } }),
        once('/fail/2', { retry: { maxAttempts: 2, initialDelaySeconds: 1 } }),
        once('/flaky/1', { retry: { maxAttempts: 3, initialDelaySeconds: 1 }, slaSeconds: 30 }),
      ])),
    );
    await eventually(
      async () => Promise.all(jobIds.map(async (id) => (await api('GET', `/v1/jobs/${id}`)).body.status)),
      (statuses) => statuses.every((s) => s === 'COMPLETED' || s === 'FAILED'),
      20_000,
    );
  }, 40_000);

  it('shows where the time of each run went on its run history', async () => {
    const flaky = jobIds[5] as string;
    const { body } = await api('GET', `/v1/jobs/${flaky}/runs`);
    const [second, first] = body.items;

    expect(first).toMatchObject({ attempt: 1, status: 'FAILED', slaSeconds: 30, slaMet: true });
    expect(second).toMatchObject({ attempt: 2, status: 'SUCCEEDED', slaSeconds: 30 });
    for (const run of [first, second]) {
      for (const field of ['enqueuedAt', 'receivedAt', 'claimedAt', 'startedAt', 'completedAt', 'dueAt']) {
        expect(Date.parse(run[field]), field).not.toBeNaN();
      }
      expect(run.startLagMs).toBe(Date.parse(run.startedAt) - Date.parse(run.dueAt));
      expect(run.dispatchLagMs).toBe(Date.parse(run.receivedAt) - Date.parse(run.dueAt));
      expect(Date.parse(run.enqueuedAt)).toBeLessThanOrEqual(Date.parse(run.receivedAt));
      expect(typeof run.durationMs).toBe('number');
    }
    // The retry is due at its backoff, not at the occurrence.
    expect(Date.parse(second.dueAt)).toBeGreaterThan(Date.parse(first.completedAt));
  });

  it('counts runs by status exactly as the runs table holds them, and percentiles in the same bucket', async () => {
    const runs = await allRuns();
    const expected: Record<string, number> = {};
    for (const run of runs) expected[run.status] = (expected[run.status] ?? 0) + 1;
    // Aggregation follows the stream: wait until every terminal run is counted.
    const { body: stats } = await eventually(
      () => api('GET', '/v1/monitoring/stats?window=5m'),
      (r) => r.body.runs.total === runs.length,
      10_000,
    );

    // ok ×2, slow, fail (1 attempt), fail (2 attempts), flaky (2 attempts).
    expect(runs).toHaveLength(8);
    expect(Object.fromEntries(Object.entries(stats.runs.byStatus).filter(([, n]) => n !== 0))).toEqual(expected);
    expect(stats.runs.retried).toBe(runs.filter((r) => r.nextAttemptAt !== undefined).length);
    expect(stats.runs.dueNotStarted).toBe(runs.filter((r) => r.status === 'QUEUED').length);
    expect(stats.runs.dueNotStarted).toBe(0);
    expect(stats.runs.successRate).toBe(Math.round(((expected.SUCCEEDED ?? 0) / runs.length) * 10_000) / 10_000);

    const lags = runs.filter((r) => r.startedAt !== undefined).map((r) => (r.startedAt as number) - startableAtOf(r));
    const durations = runs.filter((r) => r.startedAt !== undefined).map((r) => r.durationMs as number);
    expect(stats.startLagMs.count).toBe(lags.length);
    for (const p of [50, 95, 99] as const) {
      expect(stats.startLagMs[`p${p}`], `start lag p${p}`).toBe(
        upperBoundOf(bucketOf(exactPercentile(lags, p) as number)),
      );
      expect(stats.durationMs[`p${p}`], `duration p${p}`).toBe(
        upperBoundOf(bucketOf(exactPercentile(durations, p) as number)),
      );
    }
  });

  it('counts jobs by status as the jobs table holds them', async () => {
    const { Items = [] } = await documents.query({
      TableName: chronos.tables.jobs,
      KeyConditionExpression: 'tenantId = :t',
      ExpressionAttributeValues: { ':t': chronos.tenantId },
    });
    const expected: Record<string, number> = {};
    for (const job of Items) expected[job.status as string] = (expected[job.status as string] ?? 0) + 1;

    const { body: stats } = await api('GET', '/v1/monitoring/stats?window=1h');
    expect(Object.fromEntries(Object.entries(stats.jobs.byStatus).filter(([, n]) => n !== 0))).toEqual(expected);
    expect(expected).toEqual({ COMPLETED: 4, FAILED: 2 });
    // The six creates moved no counter of their own: their admissions counted them ACTIVE on the
    // tenant item, and the counter item holds only what the completions moved since.
    const { Item: tenant } = await documents.get({
      TableName: chronos.tables.tenants,
      Key: tenantKeys.tenant(chronos.tenantId),
    });
    expect(tenant?.admittedJobs).toBe(6);
    const { Item: counters } = await documents.get({
      TableName: chronos.tables.metrics,
      Key: jobCountsKey(chronos.tenantId),
    });
    expect(counters).toMatchObject({ ACTIVE: -6, COMPLETED: 4, FAILED: 2 });
  });

  it('lets the admin scope see all tenants, and keeps tenants to their own scope', async () => {
    const mine = await api('GET', '/v1/monitoring/stats?window=5m');
    const all = await api('GET', '/v1/monitoring/stats?window=5m', undefined, ADMIN_TOKEN);

    expect(all.body.scope).toBe('*');
    expect(all.body.runs.byStatus).toEqual(mine.body.runs.byStatus);
    // Summed over the tenants' own counters (only the dev tenant has jobs so far).
    expect(all.body.jobs.byStatus).toEqual(mine.body.jobs.byStatus);
    expect((await api('GET', '/v1/monitoring/stats?window=5m&tenantId=x')).status).toBe(400);
    expect((await api('GET', '/v1/monitoring/stats?window=2d')).status).toBe(400);
    expect((await api('GET', '/v1/monitoring/system')).status).toBe(403);
  });
});

describe('runs due but not started', () => {
  it("counts a tenant's queued due runs exactly while its only slot is taken, and none once they ran", async () => {
    const { tenant, token } = await chronos.tenants.create('queued', { maxConcurrentRuns: 1 });
    const apiQ = apiAs(chronos.apiUrl, token.token);
    const stats = async (as = apiQ, query = '') =>
      (await as('GET', `/v1/monitoring/stats?window=5m${query}`)).body.runs.dueNotStarted as number;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await apiQ('POST', '/v1/jobs', {
        target: { url: target.url('/hold') },
        schedule: { type: 'once' },
        timeoutSeconds: 30,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      ids.push(created.body.jobId);
    }
    // One run holds the slot (its call takes HOLD_MS); the other two are due and wait, QUEUED.
    await target.waitForCalls('/hold', 1, 10_000);

    expect(await eventually(stats, (n) => n === 2, 5_000)).toBe(2);
    const queued = (await allRuns(tenant.tenantId)).filter((r) => r.status === 'QUEUED');
    expect(queued).toHaveLength(2);
    const asAdmin = apiAs(chronos.apiUrl, ADMIN_TOKEN);
    expect(await stats(asAdmin, `&tenantId=${tenant.tenantId}`)).toBe(2);

    await eventually(
      async () => Promise.all(ids.map(async (id) => (await apiQ('GET', `/v1/jobs/${id}`)).body.status)),
      (statuses) => statuses.every((s) => s === 'COMPLETED'),
      45_000,
    );
    expect(await eventually(stats, (n) => n === 0, 5_000)).toBe(0);
    expect((await allRuns(tenant.tenantId)).map((r) => r.status)).toEqual(['SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED']);
    // Every tenant's runs have run by now: none due for all tenants either.
    expect(
      await eventually(
        () => stats(asAdmin),
        (n) => n === 0,
        20_000,
      ),
    ).toBe(0);
  }, 90_000);
});

describe('system view and health', () => {
  it('fails health, naming the missing scanner heartbeat, until a scan ran', async () => {
    const reachable = { jobsTable: 'ok', runsTable: 'ok', tenantsTable: 'ok', dispatchQueue: 'ok' };
    const asAdmin = { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } };
    // Without the admin token, only liveness: the missing heartbeat is not anyone's to see.
    const anonymous = await fetch(`${chronos.apiUrl}/v1/health`);
    expect(anonymous.status).toBe(200);
    expect(await anonymous.json()).toEqual({ status: 'ok' });
    const before = await fetch(`${chronos.apiUrl}/v1/health`, asAdmin);
    expect(before.status).toBe(503);
    expect(await before.json()).toEqual({
      status: 'unavailable',
      checks: { ...reachable, scannerHeartbeat: 'missing' },
      failing: ['scannerHeartbeat'],
      checkedAt: expect.any(String),
    });

    await chronos.invokeScanner();
    const started = Date.now();
    // deep=true: the check taken now, not the answer cached a moment ago.
    const after = await fetch(`${chronos.apiUrl}/v1/health?deep=true`, asAdmin);
    expect(await after.json()).toEqual({
      status: 'ok',
      checks: { ...reachable, scannerHeartbeat: 'ok' },
      failing: [],
      checkedAt: expect.any(String),
    });
    expect(after.status).toBe(200);
    // Every check runs in parallel under a 2 s cut-off: a healthy answer is far below it.
    expect(Date.now() - started).toBeLessThan(2_000);
    // Without deep=true the admin gets the same, cached, answer.
    expect((await fetch(`${chronos.apiUrl}/v1/health`, asAdmin)).status).toBe(200);
  });

  it('shows a non-zero queue depth while a burst of delayed messages is pending', async () => {
    const at = new Date(Date.now() + 15_000).toISOString();
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        createJob({ target: { url: target.url(`/later/${i}`) }, schedule: { type: 'once', at } }),
      ),
    );

    const { status, body } = await api('GET', '/v1/monitoring/system', undefined, ADMIN_TOKEN);

    expect(status).toBe(200);
    expect(body.dispatchQueue.depth).toBeGreaterThanOrEqual(12);
    expect(body.dispatchQueue.delayed).toBeGreaterThanOrEqual(12);
    expect(body.deadLetterQueue.depth).toBe(0);
    expect(body.scanner.shards).toHaveLength(16);
    expect(body.scanner.shards[0]).toMatchObject({ shard: 'due#00', durationMs: expect.any(Number) });
    expect(Date.parse(body.scanner.lastRunAt)).not.toBeNaN();
    expect(typeof body.executor.inFlight).toBe('number');
  });

  it("reports each priority lane's own queues, the normal lane's also at the top level (issue #22)", async () => {
    const at = new Date(Date.now() + 15_000).toISOString();
    const later = (priority: string, i: number) =>
      createJob({ target: { url: target.url(`/lane-${priority}/${i}`) }, schedule: { type: 'once', at }, priority });
    await Promise.all([
      ...Array.from({ length: 5 }, (_, i) => later('high', i)),
      ...Array.from({ length: 3 }, (_, i) => later('low', i)),
    ]);

    const { status, body } = await api('GET', '/v1/monitoring/system', undefined, ADMIN_TOKEN);

    expect(status).toBe(200);
    // No other test of this file makes high or low runs: each lane shows exactly its own.
    expect(body.lanes.high.dispatchQueue).toMatchObject({ delayed: 5, depth: 5 });
    expect(body.lanes.low.dispatchQueue).toMatchObject({ delayed: 3, depth: 3 });
    for (const lane of ['high', 'normal', 'low']) expect(body.lanes[lane].deadLetterQueue.depth).toBe(0);
    expect(body.dispatchQueue).toEqual(body.lanes.normal.dispatchQueue);
    expect(body.deadLetterQueue).toEqual(body.lanes.normal.deadLetterQueue);
  });

  it('shows the dispatch queue’s oldest-message age while released messages wait for an executor', async () => {
    const before = await api('GET', '/v1/monitoring/system', undefined, ADMIN_TOKEN);
    // The local CloudWatch answers for every existing queue: an empty DLQ reads 0, from a datapoint.
    expect(before.body.deadLetterQueue).toMatchObject({
      depth: 0,
      oldestMessageAgeSeconds: 0,
      oldestMessageAge: { source: 'cloudwatch', at: expect.any(String) },
    });

    await executor.stop();
    const createdAt = Date.now();
    await Promise.all(Array.from({ length: 3 }, (_, i) => createJob({ target: { url: target.url(`/pending/${i}`) } })));

    // Ages are whole seconds: a message released now reads 1 after a second.
    const { body } = await eventually(
      () => api('GET', '/v1/monitoring/system', undefined, ADMIN_TOKEN),
      (r) => r.body.dispatchQueue.oldestMessageAgeSeconds >= 1,
      10_000,
    );
    // At least one of them still released and unreceived (a receive cut off by the stop may hold one).
    expect(body.dispatchQueue.visible).toBeGreaterThan(0);
    expect(body.dispatchQueue.oldestMessageAge).toEqual({ source: 'cloudwatch', at: expect.any(String) });
    expect(Date.now() - Date.parse(body.dispatchQueue.oldestMessageAge.at)).toBeLessThan(60_000);
    expect(body.dispatchQueue.oldestMessageAgeSeconds).toBeGreaterThan(0);
    // Measured from each message's release: no older than the whole test file.
    expect(body.dispatchQueue.oldestMessageAgeSeconds).toBeLessThan((Date.now() - createdAt) / 1000 + 120);
  });
});
