/**
 * The typed client against the local runtime: every route through its method, listings walked
 * across pages with `for await`, and failures as typed values naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import {
  type ChronosClient,
  ChronosError,
  createChronosClient,
  type Job,
  unwrap,
  type WorkflowRun,
} from '../../client/src/index.ts';
import { eventually } from '../support/http-target.ts';

const ADMIN_TOKEN = 'client-test-admin-token';
let chronos: LocalChronos;
let client: ChronosClient;
/** Requests the client sent, as `METHOD path?query`. */
const sent: string[] = [];

beforeAll(async () => {
  chronos = await startLocalChronos({ scannerIntervalMs: 0, adminToken: ADMIN_TOKEN, log: () => undefined });
  client = createChronosClient({
    baseUrl: chronos.apiUrl,
    token: chronos.token,
    fetch: (request) => {
      const url = new URL(request.url);
      sent.push(`${request.method} ${url.pathname}${url.search}`);
      return fetch(request);
    },
  });
});

afterAll(async () => {
  await chronos?.stop();
});

/** Hourly, so nothing runs during the test unless triggered; the target is never reached. */
const hourly = (name: string) => ({
  name,
  target: { url: 'http://127.0.0.1:9/never', method: 'POST' as const },
  schedule: { type: 'interval' as const, everySeconds: 3600 },
});

describe('jobs through the client', () => {
  it('creates, reads, changes with If-Match, pauses, resumes and cancels a job', async () => {
    const created = unwrap(await client.jobs.create(hourly('client-life')));
    expect(created.status).toBe('ACTIVE');
    const read = await client.jobs.get(created.jobId);
    expect(read.data?.upcoming?.length).toBeGreaterThan(0);
    expect(read.response?.headers.get('etag')).toBe(`"${created.version}"`);

    const renamed = unwrap(await client.jobs.update(created.jobId, { name: 'client-life-2' }, created.version));
    expect(renamed.name).toBe('client-life-2');
    // The ETag as the API gave it works too.
    const etag = read.response?.headers.get('etag') as string;
    const stale = await client.jobs.update(created.jobId, { name: 'late' }, etag);
    expect(stale.error).toMatchObject({ status: 409, code: 'CONFLICT' });

    expect(unwrap(await client.jobs.pause(created.jobId)).status).toBe('PAUSED');
    expect(unwrap(await client.jobs.resume(created.jobId)).status).toBe('ACTIVE');
    expect(unwrap(await client.jobs.cancel(created.jobId)).status).toBe('CANCELLED');
  });

  it('replays a create sent again with the same Idempotency-Key', async () => {
    const first = unwrap(await client.jobs.create(hourly('client-keyed'), { idempotencyKey: 'client-key-1' }));
    const again = await client.jobs.create(hourly('client-keyed'), { idempotencyKey: 'client-key-1' });
    expect(again.data?.jobId).toBe(first.jobId);
    expect(again.response?.headers.get('idempotent-replayed')).toBe('true');
  });

  it('walks every page of a listing with for await, asking for each page once', async () => {
    const names = ['client-page-a', 'client-page-b', 'client-page-c', 'client-page-d', 'client-page-e'];
    const ids = [];
    for (const name of names) ids.push(unwrap(await client.jobs.create(hourly(name))).jobId);
    sent.length = 0;
    const listed: Job[] = [];
    for await (const job of client.jobs.list({ name: 'client-page-', limit: 2 })) listed.push(job);
    expect(listed.map((job) => job.jobId).sort()).toEqual(ids.sort());
    // 2 + 2 + 1: three pages, the later ones asked with the cursor the previous one gave.
    const pages = sent.filter((s) => s.startsWith('GET /v1/jobs?'));
    expect(pages).toHaveLength(3);
    expect(pages[0]).not.toContain('cursor=');
    expect(pages[1]).toContain('cursor=');
    expect(pages[2]).toContain('cursor=');
  });

  it("triggers runs and walks the job's runs across pages; dead letters list (none here)", async () => {
    const job = unwrap(await client.jobs.create(hourly('client-runs')));
    const triggered = [];
    for (const key of ['t-1', 't-2', 't-3']) {
      triggered.push(unwrap(await client.jobs.trigger(job.jobId, { idempotencyKey: key })).runId);
    }
    const runs = [];
    for await (const run of client.jobs.runs(job.jobId, { limit: 1 })) runs.push(run.runId);
    expect(runs).toEqual(expect.arrayContaining(triggered));
    const deadLetters = [];
    for await (const run of client.deadLetters.list({ limit: 5 })) deadLetters.push(run);
    expect(deadLetters).toEqual([]);
  });
});

/** A trigger-only workflow: `first` then `second`, calling a port nothing listens on (each task fails at once). */
const chain = (name: string) => ({
  name,
  tasks: [
    { key: 'first', target: { url: 'http://127.0.0.1:9/never' }, retry: { maxAttempts: 1 } },
    { key: 'second', target: { url: 'http://127.0.0.1:9/never' }, dependsOn: ['first'] },
  ],
});

describe('workflows through the client', () => {
  it('creates, lists across pages, reads, changes with If-Match, pauses, resumes and deletes a workflow', async () => {
    const created = unwrap(await client.workflows.create(chain('client-wf')));
    expect(created).toMatchObject({ status: 'ACTIVE', version: 1, schedule: null });
    expect(created.workflowId).toMatch(/^wf[0-9A-Z]{26}$/);
    const again = await client.workflows.create(chain('client-wf-keyed'), { idempotencyKey: 'client-wf-key' });
    const replay = await client.workflows.create(chain('client-wf-keyed'), { idempotencyKey: 'client-wf-key' });
    expect(replay.data?.workflowId).toBe(again.data?.workflowId);
    expect(replay.response?.headers.get('idempotent-replayed')).toBe('true');

    sent.length = 0;
    const listed = [];
    for await (const workflow of client.workflows.list({ limit: 1 })) listed.push(workflow);
    expect(listed.map((w) => w.workflowId)).toEqual(
      expect.arrayContaining([created.workflowId, again.data?.workflowId]),
    );
    expect(listed.find((w) => w.workflowId === created.workflowId)?.taskCount).toBe(2);
    const pagesAsked = sent.filter((s) => s.startsWith('GET /v1/workflows?'));
    // One workflow a page: a page asked per workflow (and one more when the last page still had a cursor).
    expect(pagesAsked.length).toBeGreaterThanOrEqual(listed.length);
    expect(pagesAsked.slice(1).every((s) => s.includes('cursor='))).toBe(true);
    expect(unwrap(await client.workflows.listPage({ limit: 1 })).items).toHaveLength(1);

    const read = await client.workflows.get(created.workflowId);
    expect(read.data?.tasks.map((t) => [t.key, t.dependsOn])).toEqual([
      ['first', []],
      ['second', ['first']],
    ]);
    expect(read.response?.headers.get('etag')).toBe('"1"');
    const etag = read.response?.headers.get('etag') as string;
    const renamed = unwrap(await client.workflows.update(created.workflowId, { name: 'client-wf-2' }, created.version));
    expect(renamed).toMatchObject({ name: 'client-wf-2', version: 2 });
    const stale = await client.workflows.update(created.workflowId, { name: 'late' }, etag);
    expect(stale.error).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(sent).toContain(`PATCH /v1/workflows/${created.workflowId}`);

    expect(unwrap(await client.workflows.pause(created.workflowId)).status).toBe('PAUSED');
    expect(unwrap(await client.workflows.resume(created.workflowId)).status).toBe('ACTIVE');
    expect(unwrap(await client.workflows.delete(created.workflowId)).status).toBe('CANCELLED');
  });

  it('triggers a run (replayed by its key), walks the runs, reads, retries and cancels a workflow run', async () => {
    const workflow = unwrap(await client.workflows.create(chain('client-wf-runs')));
    const first = await client.workflows.trigger(workflow.workflowId, { idempotencyKey: 'wf-run-1' });
    const run = unwrap(first);
    expect(first.response?.status).toBe(202);
    expect(run).toMatchObject({ workflowId: workflow.workflowId, status: 'RUNNING', round: 0, version: 1 });
    const replayed = await client.workflows.trigger(workflow.workflowId, { idempotencyKey: 'wf-run-1' });
    expect(replayed.data?.workflowRunId).toBe(run.workflowRunId);
    expect(replayed.response?.headers.get('idempotent-replayed')).toBe('true');

    // `first` fails at once (nothing listens), so `second` is skipped and the run ends FAILED.
    const failed = await eventually(
      async () => unwrap(await client.workflowRuns.get(run.workflowRunId)),
      (r: WorkflowRun) => r.status === 'FAILED',
      20_000,
    );
    expect(failed.tasks.map((t) => [t.key, t.status])).toEqual([
      ['first', 'FAILED'],
      ['second', 'SKIPPED'],
    ]);
    const retried = await client.workflowRuns.retry(run.workflowRunId);
    expect(retried.response?.status).toBe(202);
    expect(retried.data).toMatchObject({ workflowRunId: run.workflowRunId, round: 1 });
    const cancelled = await client.workflowRuns.cancel(run.workflowRunId);
    // The retried round may already have failed again: then the cancel is refused as for any ended run.
    if (cancelled.error) expect(cancelled.error).toMatchObject({ status: 409, code: 'CONFLICT' });
    else expect(cancelled.data).toMatchObject({ workflowRunId: run.workflowRunId, status: 'CANCELLED' });

    expect(sent).toContain(`POST /v1/workflow-runs/${run.workflowRunId}/retry`);
    expect(sent).toContain(`POST /v1/workflow-runs/${run.workflowRunId}/cancel`);

    const second = unwrap(await client.workflows.trigger(workflow.workflowId));
    sent.length = 0;
    const runs = [];
    for await (const summary of client.workflows.runs(workflow.workflowId, { limit: 1 })) runs.push(summary);
    expect(runs.map((r) => r.workflowRunId)).toEqual([second.workflowRunId, run.workflowRunId]);
    expect(sent.filter((s) => s.startsWith(`GET /v1/workflows/${workflow.workflowId}/runs?`)).length).toBeGreaterThan(
      1,
    );
    expect(unwrap(await client.workflows.runsPage(workflow.workflowId, { limit: 5 })).items).toHaveLength(2);
  });

  it('answers an unknown workflow and workflow run as NOT_FOUND, a cycle as VALIDATION_FAILED naming its tasks', async () => {
    expect((await client.workflows.get('wf01JD2Q8Z4W6X7Y8Z9A0B1C2D3E')).error).toMatchObject({ status: 404 });
    expect((await client.workflowRuns.get('wf01JD2Q8Z4W6X7Y8Z9A0B1C2D3E_1700000000000')).error).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
    });
    const cycle = await client.workflows.create({
      tasks: [
        { key: 'root', target: { url: 'http://127.0.0.1:9/never' } },
        { key: 'a', target: { url: 'http://127.0.0.1:9/never' }, dependsOn: ['root', 'b'] },
        { key: 'b', target: { url: 'http://127.0.0.1:9/never' }, dependsOn: ['a'] },
      ],
    });
    expect(cycle.error).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(JSON.stringify(cycle.error)).toMatch(/\ba\b.*\bb\b|\bb\b.*\ba\b/);
  });
});

describe('runs and callbacks through the client', () => {
  it('reads a run with its checkpoint, and answers an unknown run cancel as NOT_FOUND', async () => {
    const job = unwrap(await client.jobs.create(hourly('client-run-read')));
    const run = unwrap(await client.jobs.trigger(job.jobId));
    const read = unwrap(await client.runs.get(run.runId));
    expect(read).toMatchObject({ runId: run.runId, jobId: job.jobId, checkpoint: null });
    const unknown = await client.runs.cancel(`${job.jobId}_1700000000000_1`);
    expect(unknown.error).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(sent).toContain(`POST /v1/runs/${job.jobId}_1700000000000_1/cancel`);
  });

  it('sends callbacks with the token in the path, a refused token and a bad field as typed errors', async () => {
    const forged = `AQAAAAAAAAABAAF0AWo${'A'.repeat(43)}`;
    expect((await client.callbacks.state(forged)).error).toMatchObject({ status: 401, code: 'INVALID_CALLBACK_TOKEN' });
    expect((await client.callbacks.heartbeat(forged, { progress: 5 })).error).toMatchObject({
      status: 401,
      code: 'INVALID_CALLBACK_TOKEN',
    });
    const bad = await client.callbacks.complete(forged, { status: 'done' as 'succeeded' });
    expect(bad.error).toMatchObject({ status: 400, details: [expect.objectContaining({ field: 'status' })] });
    expect(sent).toContain(`GET /v1/callbacks/${forged}`);
  });
});

describe('failures as typed values', () => {
  it('answers an unknown job as NOT_FOUND and a bad body as VALIDATION_FAILED naming the field', async () => {
    const missing = await client.jobs.get('01JD2Q8Z4W6X7Y8Z9A0B1C2D3E');
    expect(missing.error).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    const invalid = await client.jobs.create({ target: {} as never, schedule: { type: 'interval', everySeconds: 60 } });
    expect(invalid.error).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', field: 'target.url' });
    expect(() => unwrap(invalid)).toThrow(ChronosError);
  });

  it('throws ChronosError from a listing whose page fails', async () => {
    const walk = async () => {
      for await (const _ of client.jobs.list({ limit: 0 })) break;
    };
    await expect(walk()).rejects.toMatchObject({ error: { code: 'VALIDATION_FAILED', field: 'limit' } });
  });

  it('answers without a token as UNAUTHORIZED', async () => {
    const anonymous = createChronosClient({ baseUrl: chronos.apiUrl });
    expect((await anonymous.jobs.listPage()).error).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });
});

describe('signing secrets, monitoring, health and the document', () => {
  it('rotates and lists signing secrets', async () => {
    const issued = unwrap(await client.signingSecrets.rotate({ overlapHours: 1 }));
    expect(issued.secret).toMatch(/^whsec_/);
    const listed = unwrap(await client.signingSecrets.list());
    expect(listed.items.map((s) => s.secretId)).toContain(issued.secretId);
    expect(listed.items.every((s) => s.secret === undefined)).toBe(true);
  });

  it('reads the stats, and the system view with the admin token only', async () => {
    expect(unwrap(await client.monitoring.stats({ window: '5m' })).scope).toBe(chronos.tenantId);
    expect((await client.monitoring.system()).error).toMatchObject({ status: 403 });
    const admin = createChronosClient({ baseUrl: chronos.apiUrl, token: ADMIN_TOKEN });
    expect(unwrap(await admin.monitoring.system()).executor.inFlight).toBeGreaterThanOrEqual(0);
    const deep = unwrap(await admin.health({ deep: 'true' }));
    expect(deep.checks?.jobsTable).toBe('ok');
  });

  it('reads the timeseries of its own tenant, all tenants with the admin token, and names a bad window', async () => {
    sent.length = 0;
    const hour = unwrap(await client.monitoring.timeseries());
    expect(hour).toMatchObject({ scope: chronos.tenantId, window: '1h', stepSeconds: 60 });
    expect(hour.points).toHaveLength(60);
    const day = unwrap(await client.monitoring.timeseries({ window: '24h' }));
    expect(day.points).toHaveLength(96);
    expect(sent).toEqual(['GET /v1/monitoring/timeseries', 'GET /v1/monitoring/timeseries?window=24h']);
    // The generated types refuse an unknown window; the API names it, should one be sent anyway.
    const bad = await client.monitoring.timeseries({ window: '5m' as '1h' });
    expect(bad.error).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', field: 'window' });

    const admin = createChronosClient({ baseUrl: chronos.apiUrl, token: ADMIN_TOKEN });
    expect(unwrap(await admin.monitoring.timeseries()).scope).toBe('*');
    expect(unwrap(await admin.monitoring.timeseries({ tenantId: chronos.tenantId })).scope).toBe(chronos.tenantId);
  });

  it("previews a schedule's occurrences as the job would have them, and names a bad field", async () => {
    const cron = { type: 'cron' as const, expression: '0 9 * * 1-5', timezone: 'Europe/Berlin' };
    const preview = unwrap(await client.schedules.preview({ schedule: cron, count: 3 }));
    expect(preview.occurrences).toHaveLength(3);
    const job = unwrap(await client.jobs.create({ ...hourly('client-preview'), schedule: cron }));
    const read = unwrap(await client.jobs.get(job.jobId));
    expect(read.upcoming?.slice(0, 3)).toEqual(preview.occurrences);
    const bad = await client.schedules.preview({ schedule: { ...cron, timezone: 'Mars/Olympus' } });
    expect(bad.error).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(bad.error?.details?.map((d) => d.field)).toContain('schedule.timezone');
  });

  it('reads health and the OpenAPI document without a token', async () => {
    const anonymous = createChronosClient({ baseUrl: chronos.apiUrl });
    expect(unwrap(await anonymous.health())).toEqual({ status: 'ok' });
    const document = unwrap(await anonymous.openapi());
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toContain('/v1/openapi.json');
  });
});
