/**
 * The workflow definition API against the local runtime (issue #21): create, get, list, PATCH
 * (If-Match, a new version whose task items leave version 1's untouched), pause, resume and
 * delete; a workflow is no job (absent from GET /v1/jobs, a 404 on every job route), counts as one
 * job against the active-job quota, and is created through the job path when scheduled (in the
 * due-index, materialized at once when due soon). Bad bodies are 400s naming the field, a cycle
 * and an unknown dependency name their tasks, and nothing sent is ever a 5xx.
 *
 * Only the API runs (no scanner, executor or completion): these are definitions, not runs.
 */
import type { DynamoDBDocument } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { localDocuments } from '../support/local-documents.ts';
import { type Api, apiAs } from './support/tenant-api.ts';

let chronos: LocalChronos;
let documents: DynamoDBDocument;
let api: Api;

beforeAll(async () => {
  chronos = await startLocalChronos({
    port: 0,
    scannerIntervalMs: 0,
    scanHorizonSeconds: 30,
    components: { scanner: false, executor: false, completion: false, deadLetters: false, notifier: false },
    log: () => undefined,
  });
  documents = localDocuments(chronos.endpoints.dynamodb);
  api = apiAs(chronos.apiUrl, chronos.token);
}, 120_000);

afterAll(async () => {
  documents?.destroy();
  await chronos?.stop();
});

const url = (path: string) => `https://etl.example.com/${path}`;
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

/** The diamond with an on-call page: five tasks. */
function etlBody(name = 'nightly-etl') {
  return {
    name,
    schedule: { type: 'cron', expression: '0 2 * * *', timezone: 'Europe/Berlin' },
    tasks: [
      {
        key: 'extract',
        target: { url: url('extract'), secretHeaders: { authorization: 'Bearer extract-secret' } },
      },
      { key: 'clean', target: { url: url('clean') }, dependsOn: ['extract'] },
      { key: 'enrich', target: { url: url('enrich') }, dependsOn: ['extract'], retry: { maxAttempts: 5 } },
      { key: 'load', target: { url: url('load') }, dependsOn: ['clean', 'enrich'], input: 'upstream' },
      { key: 'page-oncall', target: { url: url('page') }, dependsOn: ['load'], when: 'any_failed' },
    ],
  };
}

const triggerOnly = (key = 'only') => ({ tasks: [{ key, target: { url: url(key) } }] });

async function item(jobId: string, tenantId = chronos.tenantId) {
  const { Item } = await documents.get({
    TableName: chronos.tables.jobs,
    Key: { tenantId, jobId },
    ConsistentRead: true,
  });
  return Item;
}

async function create(body: unknown, as: Api = api) {
  const answer = await as('POST', '/v1/workflows', body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer;
}

describe('creating and reading a workflow', () => {
  it('answers 201 with the workflow, Location and ETag; GET answers the same; secrets are sealed', async () => {
    const created = await create(etlBody());
    const id = created.body.workflowId as string;
    expect(id).toMatch(/^wf[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(created.headers.get('location')).toBe(`/v1/workflows/${id}`);
    expect(created.headers.get('etag')).toBe('"1"');
    expect(created.body).toMatchObject({
      name: 'nightly-etl',
      status: 'ACTIVE',
      version: 1,
      schedule: { type: 'cron', expression: '0 2 * * *', timezone: 'Europe/Berlin' },
      misfire: 'fire_once',
      overlap: 'allow',
      onFailure: null,
    });
    expect(Date.parse(created.body.nextFireAt)).toBeGreaterThan(Date.now());
    expect(created.body.tasks.map((t: { key: string }) => t.key)).toEqual([
      'extract',
      'clean',
      'enrich',
      'load',
      'page-oncall',
    ]);
    expect(created.body.tasks[0]).toMatchObject({
      dependsOn: [],
      when: 'all_succeeded',
      input: null,
      target: { url: url('extract'), method: 'POST', secretHeaders: { authorization: '***' } },
      retry: { maxAttempts: 3 },
      timeoutSeconds: 30,
      delivery: 'at-least-once',
      async: null,
    });
    expect(created.body.tasks[2].retry.maxAttempts).toBe(5);
    expect(created.body.tasks[3]).toMatchObject({ dependsOn: ['clean', 'enrich'], input: 'upstream' });
    expect(created.body.tasks[4].when).toBe('any_failed');

    const read = await api('GET', `/v1/workflows/${id}`);
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe('"1"');
    expect(read.body).toEqual(created.body);

    // Stored: a head in the due-index (the job path), and version 1's task items, secrets sealed.
    const head = await item(id);
    expect(head).toMatchObject({ kind: 'workflow', definitionVersion: 1, status: 'ACTIVE' });
    expect(typeof head?.dueShard).toBe('string');
    expect(head?.nextFireAt).toBe(Date.parse(created.body.nextFireAt));
    const extract = await item(`${id}v1t0`);
    expect(extract).toMatchObject({ kind: 'workflow-task', workflowId: id, workflowVersion: 1, taskKey: 'extract' });
    expect(JSON.stringify(extract)).not.toContain('extract-secret');
    expect(extract?.nextFireAt).toBeUndefined();
  });

  it('stores a workflow without a schedule outside the due-index: only a trigger starts it', async () => {
    const created = await create(triggerOnly());
    expect(created.body.schedule).toBeNull();
    expect(created.body.nextFireAt).toBeNull();
    const head = await item(created.body.workflowId);
    expect(head?.nextFireAt).toBeUndefined();
    expect(head?.dueShard).toBeUndefined();
  });

  it('materializes a scheduled workflow due within the horizon at once, as a job: its starter run is queued', async () => {
    const at = new Date(Date.now() + 5_000).toISOString();
    const created = await create({ ...triggerOnly('soon'), schedule: { type: 'once', at } });
    const id = created.body.workflowId as string;
    const runs = await documents.query({
      TableName: chronos.tables.runs,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `${chronos.tenantId}#${id}` },
      ConsistentRead: true,
    });
    expect(runs.Items?.map((run) => [run.jobId, run.scheduledFor, run.status])).toEqual([
      [id, Date.parse(at), 'QUEUED'],
    ]);
    expect((await item(id))?.kind).toBe('workflow');
  });

  it('replays a create with the same Idempotency-Key and body, and refuses the key with another body (422)', async () => {
    const key = `wf-key-${Date.now()}`;
    const first = await api('POST', '/v1/workflows', triggerOnly('keyed'), { 'idempotency-key': key });
    const again = await api('POST', '/v1/workflows', triggerOnly('keyed'), { 'idempotency-key': key });
    const other = await api('POST', '/v1/workflows', triggerOnly('other'), { 'idempotency-key': key });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.workflowId).toBe(first.body.workflowId);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(other.status).toBe(422);
  });
});

describe('a workflow is no job', () => {
  it('is listed by GET /v1/workflows (paged, with its task count), never by GET /v1/jobs; job routes 404 on its ids', async () => {
    const tenant = await chronos.tenants.create(`wf-list-${Date.now()}`);
    const as = apiAs(chronos.apiUrl, tenant.token.token);
    const job = await as('POST', '/v1/jobs', {
      target: { url: url('job') },
      schedule: { type: 'interval', everySeconds: 3600, startAt: inAnHour() },
    });
    expect(job.status).toBe(201);
    const first = await create(etlBody('first'), as);
    const second = await create(triggerOnly('second'), as);

    const jobs = await as('GET', '/v1/jobs');
    expect(jobs.body.items.map((j: { jobId: string }) => j.jobId)).toEqual([job.body.jobId]);

    const page1 = await as('GET', '/v1/workflows?limit=1');
    expect(page1.status).toBe(200);
    expect(page1.body.items).toHaveLength(1);
    expect(page1.body.items[0]).toMatchObject({ workflowId: first.body.workflowId, name: 'first', taskCount: 5 });
    expect(page1.body.items[0].tasks).toBeUndefined();
    const page2 = await as('GET', `/v1/workflows?limit=1&cursor=${page1.body.cursor}`);
    expect(page2.body.items.map((w: { workflowId: string }) => w.workflowId)).toEqual([second.body.workflowId]);
    expect(page2.body.items[0].taskCount).toBe(1);
    const all = await as('GET', '/v1/workflows');
    expect(all.body.items).toHaveLength(2);
    expect(all.body.cursor).toBeNull();

    const id = first.body.workflowId;
    for (const jobId of [id, `${id}v1t0`]) {
      for (const [method, path] of [
        ['GET', `/v1/jobs/${jobId}`],
        ['PATCH', `/v1/jobs/${jobId}`],
        ['DELETE', `/v1/jobs/${jobId}`],
        ['POST', `/v1/jobs/${jobId}/pause`],
        ['POST', `/v1/jobs/${jobId}/trigger`],
        ['GET', `/v1/jobs/${jobId}/runs`],
      ] as const) {
        const answer = await as(method, path, method === 'PATCH' ? { name: 'x' } : undefined, { 'if-match': '1' });
        expect(answer.status, `${method} ${path}`).toBe(404);
      }
    }
    // And the workflow routes know no job, nor a task item, nor another tenant's workflow.
    expect((await as('GET', `/v1/workflows/${job.body.jobId}`)).status).toBe(404);
    expect((await as('GET', `/v1/workflows/${id}v1t0`)).status).toBe(404);
    expect((await api('GET', `/v1/workflows/${id}`)).status).toBe(404);
    expect((await api('DELETE', `/v1/workflows/${id}`)).status).toBe(404);
    expect((await item(id, tenant.tenant.tenantId))?.status).toBe('ACTIVE');
  });

  it('counts as one job against the active-job quota, and gives its place back when deleted', async () => {
    const tenant = await chronos.tenants.create(`wf-quota-${Date.now()}`, { maxActiveJobs: 2 });
    const as = apiAs(chronos.apiUrl, tenant.token.token);
    const workflow = await create(etlBody('counted'), as);
    await create(triggerOnly('counted-too'), as);
    const third = await as('POST', '/v1/jobs', {
      target: { url: url('job') },
      schedule: { type: 'interval', everySeconds: 3600, startAt: inAnHour() },
    });
    expect(third.status).toBe(429);
    expect(third.body.error).toMatchObject({ code: 'QUOTA_EXCEEDED', details: [{ field: 'maxActiveJobs' }] });
    expect((await as('POST', '/v1/workflows', triggerOnly('over'))).status).toBe(429);

    expect((await as('DELETE', `/v1/workflows/${workflow.body.workflowId}`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2_100)); // the counter is recounted at most every 2 s
    // The recount counts heads only: the deleted workflow's five task items (ACTIVE items) take no place.
    await create(triggerOnly('in-its-place'), as);
    expect((await as('POST', '/v1/workflows', triggerOnly('over-again'))).status).toBe(429);
  });
});

describe('PATCH /v1/workflows/{id}', () => {
  it('needs If-Match (428), refuses a stale one (409), and makes a new version whose items leave version 1 untouched', async () => {
    const created = await create(etlBody('versioned'));
    const id = created.body.workflowId as string;
    const before = await Promise.all([0, 1, 2, 3, 4].map((i) => item(`${id}v1t${i}`)));

    const missing = await api('PATCH', `/v1/workflows/${id}`, { name: 'x' });
    expect(missing.status).toBe(428);
    expect(missing.body.error.details).toEqual([{ field: 'If-Match', reason: 'is required' }]);
    const stale = await api('PATCH', `/v1/workflows/${id}`, { name: 'x' }, { 'if-match': '"0"' });
    expect(stale.status).toBe(409);
    expect((await item(id))?.definitionVersion).toBe(1);

    const newTasks = [
      { key: 'fetch', target: { url: url('fetch') } },
      { key: 'store', target: { url: url('store'), method: 'PUT' }, dependsOn: ['fetch'], timeoutSeconds: 90 },
    ];
    const patched = await api('PATCH', `/v1/workflows/${id}`, { tasks: newTasks, name: 'v2' }, { 'if-match': '"1"' });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.headers.get('etag')).toBe('"2"');
    expect(patched.body).toMatchObject({ name: 'v2', version: 2, status: 'ACTIVE' });
    expect(patched.body.tasks.map((t: { key: string }) => t.key)).toEqual(['fetch', 'store']);
    expect(patched.body.tasks[1]).toMatchObject({
      dependsOn: ['fetch'],
      timeoutSeconds: 90,
      target: { method: 'PUT' },
    });
    expect((await api('GET', `/v1/workflows/${id}`)).body).toEqual(patched.body);

    // Version 1's items as they were; version 2's beside them, named by the head's graph.
    expect(await Promise.all([0, 1, 2, 3, 4].map((i) => item(`${id}v1t${i}`)))).toEqual(before);
    const head = await item(id);
    expect(head?.graph.map((entry: { taskJobId: string }) => entry.taskJobId)).toEqual([`${id}v2t0`, `${id}v2t1`]);
    expect(await item(`${id}v2t1`)).toMatchObject({ workflowVersion: 2, taskKey: 'store', timeoutSeconds: 90 });

    // The old ETag is stale now.
    expect((await api('PATCH', `/v1/workflows/${id}`, { name: 'late' }, { 'if-match': '1' })).status).toBe(409);
  });

  it('moves the due-index entry as a job PATCH does: schedule null makes it trigger-only, a schedule puts it back', async () => {
    const created = await create(etlBody('rescheduled'));
    const id = created.body.workflowId as string;
    const off = await api(
      'PATCH',
      `/v1/workflows/${id}`,
      { schedule: null, onFailure: { url: url('failed') } },
      {
        'if-match': '1',
      },
    );
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body).toMatchObject({ schedule: null, nextFireAt: null, onFailure: { url: url('failed') }, version: 2 });
    expect((await item(id))?.dueShard).toBeUndefined();
    expect((await item(id))?.nextFireAt).toBeUndefined();
    // The tasks were not changed: the graph still names version 1's items.
    expect((await item(id))?.graph[0].taskJobId).toBe(`${id}v1t0`);

    const startAt = inAnHour();
    const on = await api(
      'PATCH',
      `/v1/workflows/${id}`,
      { schedule: { type: 'interval', everySeconds: 600, startAt }, overlap: 'forbid', onFailure: null },
      { 'if-match': '2' },
    );
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body).toMatchObject({ overlap: 'forbid', onFailure: null, nextFireAt: startAt, version: 3 });
    const head = await item(id);
    expect(head?.nextFireAt).toBe(Date.parse(startAt));
    expect(typeof head?.dueShard).toBe('string');
  });

  it('answers 400 naming the field, and refuses an empty body', async () => {
    const created = await create(triggerOnly('bad-patch'));
    const id = created.body.workflowId;
    const bad = await api(
      'PATCH',
      `/v1/workflows/${id}`,
      { tasks: [{ key: 'a', target: { url: 'ftp://nowhere' } }] },
      { 'if-match': '1' },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field)).toContain('tasks.0.target.url');
    expect((await api('PATCH', `/v1/workflows/${id}`, {}, { 'if-match': '1' })).status).toBe(400);
    expect((await item(id))?.definitionVersion).toBe(1);
  });
});

describe('pause, resume and delete', () => {
  it('pause takes a scheduled workflow out of the due-index and resume puts it back, each a new version', async () => {
    const created = await create(etlBody('paused'));
    const id = created.body.workflowId as string;
    const paused = await api('POST', `/v1/workflows/${id}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ status: 'PAUSED', version: 2 });
    expect(paused.headers.get('etag')).toBe('"2"');
    expect(paused.body.tasks).toHaveLength(5);
    expect((await item(id))?.dueShard).toBeUndefined();
    expect((await api('POST', `/v1/workflows/${id}/pause`)).status).toBe(409);

    const resumed = await api('POST', `/v1/workflows/${id}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ status: 'ACTIVE', version: 3, nextFireAt: created.body.nextFireAt });
    expect(typeof (await item(id))?.dueShard).toBe('string');
    expect((await api('POST', `/v1/workflows/${id}/resume`)).status).toBe(409);
  });

  it('pauses and resumes a trigger-only workflow (nothing to put back in the due-index)', async () => {
    const id = (await create(triggerOnly('paused-trigger'))).body.workflowId as string;
    expect((await api('POST', `/v1/workflows/${id}/pause`)).body.status).toBe('PAUSED');
    const resumed = await api('POST', `/v1/workflows/${id}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ status: 'ACTIVE', nextFireAt: null, version: 3 });
    expect((await item(id))?.dueShard).toBeUndefined();
  });

  it('delete cancels the workflow for good (idempotent), out of the due-index; nothing changes it afterwards', async () => {
    const id = (await create(etlBody('deleted'))).body.workflowId as string;
    const deleted = await api('DELETE', `/v1/workflows/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ status: 'CANCELLED', nextFireAt: null, version: 2 });
    expect((await item(id))?.dueShard).toBeUndefined();
    expect((await api('DELETE', `/v1/workflows/${id}`)).body.status).toBe('CANCELLED');
    expect((await api('POST', `/v1/workflows/${id}/pause`)).status).toBe(409);
    expect((await api('POST', `/v1/workflows/${id}/resume`)).status).toBe(409);
    expect((await api('PATCH', `/v1/workflows/${id}`, { name: 'x' }, { 'if-match': '2' })).status).toBe(409);
    expect((await api('GET', `/v1/workflows/${id}`)).body.status).toBe('CANCELLED');
  });
});

describe('bad definitions', () => {
  it('answers 400 for a cycle naming the tasks of one, and for an unknown dependency naming it; nothing is stored', async () => {
    const before = (await api('GET', '/v1/workflows?limit=100')).body.items.length;
    const cycle = await api('POST', '/v1/workflows', {
      tasks: [
        { key: 'start', target: { url: url('s') } },
        { key: 'a', target: { url: url('a') }, dependsOn: ['start', 'c'] },
        { key: 'b', target: { url: url('b') }, dependsOn: ['a'] },
        { key: 'c', target: { url: url('c') }, dependsOn: ['b'] },
      ],
    });
    expect(cycle.status).toBe(400);
    expect(cycle.body.error.details).toHaveLength(1);
    const [problem] = cycle.body.error.details;
    expect(problem.field).toMatch(/^tasks\.[123]\.dependsOn/);
    expect(problem.reason).toMatch(/cycle/);
    for (const key of ['a', 'b', 'c']) expect(problem.reason).toContain(key);

    const unknown = await api('POST', '/v1/workflows', {
      tasks: [
        { key: 'a', target: { url: url('a') } },
        { key: 'b', target: { url: url('b') }, dependsOn: ['a', 'ghost'] },
      ],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details).toEqual([
      { field: 'tasks.1.dependsOn.1', reason: expect.stringContaining('ghost') },
    ]);

    const target = await api('POST', '/v1/workflows', {
      tasks: [
        { key: 'a', target: { url: url('a') } },
        { key: 'b', target: { url: 'http://169.254.169.254/latest/meta-data' }, dependsOn: ['a'] },
      ],
    });
    expect(target.status).toBe(400);
    expect(target.body.error.details.map((d: { field: string }) => d.field)).toEqual(['tasks.1.target.url']);
    expect((await api('GET', '/v1/workflows?limit=100')).body.items.length).toBe(before);
  });

  it('answers anything sent to the workflow routes with a 2xx or a 4xx in the error shape, never a 5xx', async () => {
    const id = (await create(triggerOnly('fuzzed'))).body.workflowId as string;
    const task = fc.record(
      {
        key: fc.oneof(fc.constantFrom('a', 'b', 'c', '__proto__', ''), fc.string({ maxLength: 70 })),
        target: fc.oneof(
          fc.record(
            { url: fc.constantFrom(url('t'), 'ftp://x', 'http://[::1]/', ''), method: fc.constantFrom('GET', 'x') },
            { requiredKeys: ['url'] },
          ),
          fc.jsonValue({ maxDepth: 2 }),
        ),
        dependsOn: fc.oneof(
          fc.array(fc.constantFrom('a', 'b', 'c', 'zz'), { maxLength: 4 }),
          fc.jsonValue({ maxDepth: 1 }),
        ),
        when: fc.constantFrom('all_succeeded', 'all_done', 'any_failed', 'never'),
        input: fc.constantFrom('upstream', 'downstream'),
        retry: fc.record({ maxAttempts: fc.oneof(fc.integer({ min: -1, max: 30 }), fc.string()) }),
        timeoutSeconds: fc.oneof(fc.integer({ min: -5, max: 100_000 }), fc.double()),
        async: fc.oneof(fc.constant({}), fc.jsonValue({ maxDepth: 1 })),
      },
      { requiredKeys: [] },
    );
    const body = fc.oneof(
      fc.record(
        {
          name: fc.oneof(fc.string({ maxLength: 210 }), fc.integer()),
          schedule: fc.oneof(
            fc.constant(null),
            fc.record(
              {
                type: fc.constantFrom('cron', 'once', 'interval'),
                expression: fc.string({ maxLength: 20 }),
                at: fc.string({ maxLength: 30 }),
                everySeconds: fc.integer({ min: -1, max: 100 }),
              },
              { requiredKeys: ['type'] },
            ),
          ),
          misfire: fc.constantFrom('skip', 'nope'),
          onFailure: fc.oneof(fc.constant(null), fc.record({ url: fc.constantFrom(url('f'), 'x') })),
          tasks: fc.oneof(fc.array(task, { maxLength: 6 }), fc.jsonValue({ maxDepth: 2 })),
        },
        { requiredKeys: [] },
      ),
      fc.jsonValue({ maxDepth: 3 }),
    );
    const request = fc.tuple(
      fc.constantFrom('POST', 'PATCH', 'PATCH'),
      body,
      fc.constantFrom('1', '"1"', 'x', undefined),
    );
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(request, async ([method, sent, ifMatch]) => {
        const path = method === 'POST' ? '/v1/workflows' : `/v1/workflows/${id}`;
        const answer = await api(method, path, sent === undefined ? 'null' : JSON.stringify(sent), {
          ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }),
        });
        seen.set(answer.status, (seen.get(answer.status) ?? 0) + 1);
        const what = `${method} ${JSON.stringify(sent).slice(0, 300)} → ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`;
        expect(answer.status, what).toBeLessThan(500);
        if (answer.status >= 400) {
          expect(typeof answer.body?.error?.code, what).toBe('string');
          expect(Array.isArray(answer.body?.error?.details), what).toBe(true);
        }
      }),
      { numRuns: 120, seed: 21 },
    );
    // The draws reached past the schema into the workflow rules.
    expect(seen.get(400) ?? 0).toBeGreaterThan(0);
  }, 120_000);
});
