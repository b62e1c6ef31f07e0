/**
 * Job management end to end, through the local runtime: listing, upcoming occurrences, PATCH with
 * If-Match, pause/resume, cancel, trigger, and tenant isolation of every endpoint.
 */
import type { DynamoDBDocument } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { type ChronosClient, createChronosClient, unwrap } from '../../client/src/index.ts';
import { eventually, type HttpTarget, type RecordedCall, startHttpTarget } from '../support/http-target.ts';
import { localDocuments } from '../support/local-documents.ts';

let chronos: LocalChronos;
let target: HttpTarget;
let documents: DynamoDBDocument;
/** The typed client (client/), for the reads that are plain uses of the API. */
let client: ChronosClient;

beforeAll(async () => {
  target = await startHttpTarget();
  chronos = await startLocalChronos({
    port: 0,
    scannerIntervalMs: 2_000,
    scanHorizonSeconds: 10,
    log: () => undefined,
  });
  documents = localDocuments(chronos.endpoints.dynamodb);
  client = createChronosClient({ baseUrl: chronos.apiUrl, token: chronos.token });
});
afterAll(async () => {
  documents?.destroy();
  await chronos?.stop();
  await target?.close();
});

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked field by field
  body: any;
  headers: Headers;
}

async function api(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${chronos.apiUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${chronos.token}`, ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

async function createJob(body: Record<string, unknown>): Promise<Record<string, unknown> & { jobId: string }> {
  const created = await api('POST', '/v1/jobs', body);
  expect(created.status).toBe(201);
  return created.body;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const iso = (ms: number) => new Date(ms).toISOString();
/** The occurrence a call was for, from its Idempotency-Key `<jobId>:<scheduledFor>`. */
const scheduledFor = (call: RecordedCall) => Number(String(call.headers['idempotency-key']).split(':')[1]);

describe('listing jobs', () => {
  it('filters by status, type and name prefix, and pages with a cursor', async () => {
    const prefix = `list-${Date.now()}`;
    const later = { type: 'interval', everySeconds: 3600, startAt: iso(Date.now() + 3_600_000) };
    const a = await createJob({ name: `${prefix}-a`, target: { url: target.url('/list') }, schedule: later });
    const b = await createJob({ name: `${prefix}-b`, target: { url: target.url('/list') }, schedule: later });
    const c = await createJob({
      name: `${prefix}-c`,
      target: { url: target.url('/list') },
      schedule: { type: 'once', at: iso(Date.now() + 3_600_000) },
    });
    expect((await api('POST', `/v1/jobs/${b.jobId}/pause`)).status).toBe(200);

    const intervals = unwrap(await client.jobs.listPage({ name: prefix, type: 'interval' }));
    const paused = unwrap(await client.jobs.listPage({ name: prefix, status: 'PAUSED' }));
    const first = unwrap(await client.jobs.listPage({ name: prefix, limit: 2 }));
    const second = unwrap(await client.jobs.listPage({ name: prefix, limit: 2, cursor: first.cursor ?? '' }));

    expect(intervals.items.map((j) => j.jobId)).toEqual([a.jobId, b.jobId]);
    expect(paused.items.map((j) => j.jobId)).toEqual([b.jobId]);
    expect(first.items.map((j) => j.jobId)).toEqual([a.jobId, b.jobId]);
    expect(typeof first.cursor).toBe('string');
    expect(second.items.map((j) => j.jobId)).toEqual([c.jobId]);
  });

  it('answers invalid query parameters with 400 naming each', async () => {
    const job = await createJob({
      target: { url: target.url('/params') },
      schedule: { type: 'once', at: iso(Date.now() + 3_600_000) },
    });

    const jobs = await api('GET', '/v1/jobs?status=SLEEPING&limit=0&colour=red');
    const runs = await api('GET', `/v1/jobs/${job.jobId}/runs?from=yesterday&status=LOST`);
    const backwards = await api(
      'GET',
      `/v1/jobs/${job.jobId}/runs?from=${iso(Date.now())}&to=${iso(Date.now() - 1_000)}`,
    );

    expect(jobs.status).toBe(400);
    expect(jobs.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'colour',
      'limit',
      'status',
    ]);
    expect(runs.status).toBe(400);
    expect(runs.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['from', 'status']);
    expect(backwards.body.error.details).toEqual([{ field: 'to', reason: 'must not be before from' }]);
  });
});

describe('reading a job', () => {
  it('shows the next five occurrences and the version as ETag', async () => {
    const startAt = Date.parse(iso(Math.ceil(Date.now() / 1000) * 1000 + 60_000));
    const job = await createJob({
      target: { url: target.url('/upcoming') },
      schedule: { type: 'interval', everySeconds: 5, startAt: iso(startAt) },
    });

    const read = await client.jobs.get(job.jobId);

    expect(read.data?.upcoming).toEqual([0, 5, 10, 15, 20].map((s) => iso(startAt + s * 1000)));
    expect(read.response?.headers.get('etag')).toBe(`"${read.data?.version}"`);
  });
});

describe('pausing and resuming', () => {
  it('stops the calls while paused and, with skip, does not replay what the pause missed', async () => {
    const startAt = Date.now() + 1_000;
    const job = await createJob({
      target: { url: target.url('/paused') },
      schedule: { type: 'interval', everySeconds: 2, startAt: iso(startAt) },
      misfire: 'skip',
    });
    await target.waitForCalls('/paused', 2, 6_000);

    const pause = await api('POST', `/v1/jobs/${job.jobId}/pause`);
    const pausedAt = Date.now();
    await sleep(5_000);
    const resume = await api('POST', `/v1/jobs/${job.jobId}/resume`);
    const resumedAt = Date.now();
    await sleep(4_500);

    expect(pause.status).toBe(200);
    expect(pause.body).toMatchObject({ status: 'PAUSED', nextFireAt: null });
    expect(resume.body.status).toBe('ACTIVE');
    const times = target.callsTo('/paused').map(scheduledFor);
    // A run an executor had already claimed (released up to a second early) may still go out.
    expect(times.filter((t) => t > pausedAt + 1_000 && t < resumedAt)).toEqual([]);
    expect(times.filter((t) => t >= resumedAt).length).toBeGreaterThanOrEqual(2);
    expect(new Set(times).size).toBe(times.length);
    expect((await api('POST', `/v1/jobs/${job.jobId}/resume`)).status).toBe(409);
  }, 30_000);
});

describe('cancelling', () => {
  it('makes no call for a run queued before the cancel, records it CANCELLED, and is idempotent', async () => {
    const due = Date.now() + 3_000;
    const job = await createJob({
      target: { url: target.url('/cancelled') },
      schedule: { type: 'once', at: iso(due) },
    });
    expect((await api('GET', `/v1/jobs/${job.jobId}/runs`)).body.items[0].status).toBe('QUEUED');

    const first = await api('DELETE', `/v1/jobs/${job.jobId}`);
    const second = await api('DELETE', `/v1/jobs/${job.jobId}`);

    expect(first).toMatchObject({ status: 200, body: { status: 'CANCELLED', nextFireAt: null } });
    expect(second.body).toEqual(first.body);
    const runs = await eventually(
      () => api('GET', `/v1/jobs/${job.jobId}/runs?status=CANCELLED`),
      (r) => r.body.items.length === 1,
      due - Date.now() + 5_000,
    );
    expect(runs.body.items[0]).toMatchObject({ status: 'CANCELLED', errorType: 'cancelled' });
    expect(target.callsTo('/cancelled')).toHaveLength(0);
    expect((await api('POST', `/v1/jobs/${job.jobId}/pause`)).status).toBe(409);
  }, 15_000);
});

describe('changing a job', () => {
  it('moves a cron job from every 2 s to every 3 s from its next occurrence, under If-Match', async () => {
    const job = await createJob({
      target: { url: target.url('/cron') },
      schedule: { type: 'cron', expression: '*/2 * * * * *' },
    });
    await target.waitForCalls('/cron', 2, 5_000);
    const read = await api('GET', `/v1/jobs/${job.jobId}`);
    const etag = read.headers.get('etag') as string;

    const patched = await api(
      'PATCH',
      `/v1/jobs/${job.jobId}`,
      { schedule: { type: 'cron', expression: '*/3 * * * * *' } },
      { 'if-match': etag },
    );
    const patchedAt = Date.now();
    const stale = await api('PATCH', `/v1/jobs/${job.jobId}`, { name: 'late' }, { 'if-match': etag });
    const missing = await api('PATCH', `/v1/jobs/${job.jobId}`, { name: 'late' });
    await sleep(7_000);

    expect(patched.status).toBe(200);
    expect(patched.body.schedule).toMatchObject({ type: 'cron', expression: '*/3 * * * * *' });
    expect(patched.headers.get('etag')).toBe(`"${patched.body.version}"`);
    expect(stale.status).toBe(409);
    expect(missing.status).toBe(428);
    const after = target
      .callsTo('/cron')
      .map(scheduledFor)
      .filter((t) => t > patchedAt + 1_000);
    expect(after.length).toBeGreaterThanOrEqual(2);
    for (const t of after) expect(new Date(t).getUTCSeconds() % 3).toBe(0);
    expect((await api('GET', `/v1/jobs/${job.jobId}`)).body.name).toBeUndefined();
    await api('DELETE', `/v1/jobs/${job.jobId}`);
  }, 20_000);

  it('answers invalid bodies with 400 naming the field, and changes nothing', async () => {
    const job = await createJob({
      target: { url: target.url('/invalid') },
      schedule: { type: 'once', at: iso(Date.now() + 3_600_000) },
    });
    const ifMatch = { 'if-match': `"${job.version}"` };
    const path = `/v1/jobs/${job.jobId}`;

    const unknown = await api('PATCH', path, { colour: 'red' }, ifMatch);
    const empty = await api('PATCH', path, {}, ifMatch);
    const badCron = await api('PATCH', path, { schedule: { type: 'cron', expression: 'often' } }, ifMatch);
    const badTag = await api('PATCH', path, { name: 'x' }, { 'if-match': 'yesterday' });
    const badKey = await api('POST', `${path}/trigger`, undefined, { 'idempotency-key': 'k'.repeat(200) });

    expect(unknown.body.error.details).toContainEqual({ field: 'colour', reason: 'is not an allowed field' });
    expect(empty.status).toBe(400);
    expect(badCron.body.error.details[0].field).toBe('schedule.expression');
    expect(badTag.body.error.details[0].field).toBe('If-Match');
    expect(badKey.body.error.details[0].field).toBe('Idempotency-Key');
    for (const answer of [unknown, empty, badCron, badTag, badKey]) expect(answer.status).toBe(400);
    expect((await api('GET', path)).body.version).toBe(job.version);
  });
});

describe('triggering', () => {
  it('makes exactly one extra call, leaves nextFireAt alone, and replays a retried Idempotency-Key', async () => {
    const job = await createJob({
      target: { url: target.url('/trigger') },
      schedule: { type: 'interval', everySeconds: 3600, startAt: iso(Date.now() + 3_600_000) },
    });

    const triggered = await api('POST', `/v1/jobs/${job.jobId}/trigger`);
    const keyed = await api('POST', `/v1/jobs/${job.jobId}/trigger`, undefined, { 'idempotency-key': 'retry-me' });
    const retried = await api('POST', `/v1/jobs/${job.jobId}/trigger`, undefined, { 'idempotency-key': 'retry-me' });
    await target.waitForCalls('/trigger', 2, 3_000);
    await sleep(1_500);

    expect(triggered).toMatchObject({ status: 202, body: { attempt: 1 } });
    expect(retried.body.runId).toBe(keyed.body.runId);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(target.callsTo('/trigger')).toHaveLength(2);
    expect((await api('GET', `/v1/jobs/${job.jobId}`)).body.nextFireAt).toBe(job.nextFireAt);
  }, 10_000);
});

describe('tenant isolation', () => {
  it("answers 404 on every endpoint for an unknown job and another tenant's job, and changes nothing", async () => {
    const theirs = {
      tenantId: 'someone-else',
      jobId: '01JCCCCCCCCCCCCCCCCCCCCCCC',
      status: 'ACTIVE',
      version: 1,
      schedule: { type: 'interval', everySeconds: 60, startAt: Date.now() + 3_600_000 },
      policies: { misfire: 'fire_once', overlap: 'allow' },
      target: { url: target.url('/theirs'), method: 'POST', headers: {} },
      timeoutSeconds: 30,
      occurrenceCount: 0,
      nextFireAt: Date.now() + 3_600_000,
      dueShard: 'due#00',
    };
    await documents.put({ TableName: chronos.tables.jobs, Item: theirs });

    for (const id of ['01JAAAAAAAAAAAAAAAAAAAAAAA', theirs.jobId]) {
      const answers = [
        await api('GET', `/v1/jobs/${id}`),
        await api('GET', `/v1/jobs/${id}/runs`),
        await api('PATCH', `/v1/jobs/${id}`, { name: 'mine now' }, { 'if-match': '"1"' }),
        await api('POST', `/v1/jobs/${id}/pause`),
        await api('POST', `/v1/jobs/${id}/resume`),
        await api('POST', `/v1/jobs/${id}/trigger`),
        await api('DELETE', `/v1/jobs/${id}`),
      ];
      expect(answers.map((a) => a.status)).toEqual([404, 404, 404, 404, 404, 404, 404]);
    }
    const listed = await api('GET', '/v1/jobs?limit=100');
    expect(listed.body.items.map((j: { jobId: string }) => j.jobId)).not.toContain(theirs.jobId);
    const stored = await documents.get({
      TableName: chronos.tables.jobs,
      Key: { tenantId: 'someone-else', jobId: theirs.jobId },
    });
    expect(stored.Item).toEqual(theirs);
    expect(target.callsTo('/theirs')).toHaveLength(0);
  });
});
