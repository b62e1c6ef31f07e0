/**
 * Workflows end to end (issue #21), against the local runtime (API, scanner, executor, completion
 * handler on DynamoDB Local and fauxqs) with a recording target: a diamond runs in dependency
 * order and `load` receives its parents' data; a failing `enrich` skips `load` and calls
 * `page-oncall`; a 50-way fan-out fans in once; a run keeps its version across a PATCH mid-run;
 * retry runs only the failed task and its dependents; a scheduled workflow starts by itself; a
 * deleted workflow's queued tasks are not called.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { eventually } from '../support/http-target.ts';
import { type Api, apiAs } from './support/tenant-api.ts';

interface Call {
  path: string;
  body: string;
  at: number;
  runId: string;
}

let chronos: LocalChronos;
let api: Api;
let server: Server;
let base: string;
const calls: Call[] = [];
/** Per path: the status the target answers (200 by default) and how long it takes. */
const answers = new Map<string, { status?: number; delayMs?: number }>();

beforeAll(async () => {
  chronos = await startLocalChronos({ port: 0, scannerIntervalMs: 500, scanHorizonSeconds: 5, log: () => undefined });
  api = apiAs(chronos.apiUrl, chronos.token);
  server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const path = req.url ?? '/';
    calls.push({ path, body, at: Date.now(), runId: String(req.headers['chronos-run-id'] ?? '') });
    const answer = answers.get(path) ?? {};
    const reply = () => res.writeHead(answer.status ?? 200).end(`done ${path}`);
    if (answer.delayMs) setTimeout(reply, answer.delayMs);
    else reply();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  await chronos?.stop();
  await new Promise((resolve) => server?.close(resolve));
});

let workflows = 0;
/** The nightly-etl shape, under its own path prefix so that each test's calls are its own. */
function diamond(prefix: string) {
  const url = (key: string) => `${base}/${prefix}/${key}`;
  return [
    { key: 'extract', target: { url: url('extract') } },
    { key: 'clean', target: { url: url('clean') }, dependsOn: ['extract'] },
    { key: 'enrich', target: { url: url('enrich') }, dependsOn: ['extract'], retry: { maxAttempts: 1 } },
    {
      key: 'load',
      target: { url: url('load'), body: { table: 'facts' } },
      dependsOn: ['clean', 'enrich'],
      input: 'upstream',
    },
    { key: 'page-oncall', target: { url: url('page-oncall') }, dependsOn: ['load'], when: 'any_failed' },
  ];
}

async function createWorkflow(body: Record<string, unknown>): Promise<string> {
  const created = await api('POST', '/v1/workflows', { name: `wf-${++workflows}`, ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.workflowId as string;
}

async function trigger(workflowId: string): Promise<string> {
  const triggered = await api('POST', `/v1/workflows/${workflowId}/trigger`);
  expect(triggered.status, JSON.stringify(triggered.body)).toBe(202);
  return triggered.body.workflowRunId as string;
}

// biome-ignore lint/suspicious/noExplicitAny: the run answer is checked field by field
async function ended(workflowRunId: string, timeoutMs = 30_000): Promise<any> {
  const answer = await eventually(
    () => api('GET', `/v1/workflow-runs/${workflowRunId}`),
    (got) => got.status === 200 && got.body.status !== 'RUNNING',
    timeoutMs,
  );
  return answer.body;
}

const callsTo = (prefix: string, key?: string) =>
  calls.filter(
    (call) => call.path === `/${prefix}/${key}` || (key === undefined && call.path.startsWith(`/${prefix}/`)),
  );
const taskOf = (run: { tasks: Array<{ key: string }> }, key: string) =>
  // biome-ignore lint/suspicious/noExplicitAny: the task answer is checked field by field
  run.tasks.find((task) => task.key === key) as any;

describe('a workflow run', () => {
  it('runs a diamond in dependency order; load starts after both parents and receives their data', async () => {
    const workflowId = await createWorkflow({ tasks: diamond('diamond') });
    const run = await ended(await trigger(workflowId));
    expect(run.status).toBe('SUCCEEDED');
    const [extract] = callsTo('diamond', 'extract');
    const [clean] = callsTo('diamond', 'clean');
    const [enrich] = callsTo('diamond', 'enrich');
    const load = callsTo('diamond', 'load');
    expect(load).toHaveLength(1);
    expect(callsTo('diamond', 'page-oncall')).toEqual([]);
    expect(extract && clean && enrich).toBeTruthy();
    expect((clean as Call).at).toBeGreaterThanOrEqual((extract as Call).at);
    expect((enrich as Call).at).toBeGreaterThanOrEqual((extract as Call).at);
    expect((load[0] as Call).at).toBeGreaterThanOrEqual(Math.max((clean as Call).at, (enrich as Call).at));
    expect(JSON.parse((load[0] as Call).body)).toEqual({
      body: { table: 'facts' },
      upstream: {
        clean: { status: 'SUCCEEDED', httpStatus: 200, responseExcerpt: 'done /diamond/clean' },
        enrich: { status: 'SUCCEEDED', httpStatus: 200, responseExcerpt: 'done /diamond/enrich' },
      },
    });
    expect(taskOf(run, 'page-oncall')).toMatchObject({ status: 'SKIPPED', runId: null });
    expect(taskOf(run, 'load')).toMatchObject({ status: 'SUCCEEDED', attempt: 1, httpStatus: 200 });
    // Each task's attempt is an ordinary run in the runs API, naming its workflow run and task.
    const loadRun = await api('GET', `/v1/runs/${taskOf(run, 'load').runId}`);
    expect(loadRun.body).toMatchObject({ status: 'SUCCEEDED', workflowRunId: run.workflowRunId, taskKey: 'load' });
    const listed = await api('GET', `/v1/workflows/${workflowId}/runs`);
    expect(listed.body.items.map((item: { workflowRunId: string }) => item.workflowRunId)).toEqual([run.workflowRunId]);
    expect(listed.body.items[0].taskCounts).toEqual({ SUCCEEDED: 4, SKIPPED: 1 });
  }, 60_000);

  it('skips load after a failing enrich, calls page-oncall, ends FAILED; retry re-runs only enrich and load', async () => {
    answers.set('/failing/enrich', { status: 500 });
    const workflowId = await createWorkflow({ tasks: diamond('failing') });
    const workflowRunId = await trigger(workflowId);
    let run = await ended(workflowRunId);
    expect(run.status).toBe('FAILED');
    expect(taskOf(run, 'enrich')).toMatchObject({ status: 'FAILED', httpStatus: 500, errorType: 'http_5xx' });
    expect(taskOf(run, 'load').status).toBe('SKIPPED');
    expect(taskOf(run, 'page-oncall').status).toBe('SUCCEEDED');
    expect(callsTo('failing', 'load')).toEqual([]);
    expect(callsTo('failing', 'page-oncall')).toHaveLength(1);

    answers.delete('/failing/enrich');
    const before = { extract: callsTo('failing', 'extract').length, clean: callsTo('failing', 'clean').length };
    const retried = await api('POST', `/v1/workflow-runs/${workflowRunId}/retry`);
    expect(retried.status, JSON.stringify(retried.body)).toBe(202);
    expect(retried.body).toMatchObject({ round: 1, status: 'RUNNING' });
    run = await ended(workflowRunId);
    expect(run).toMatchObject({ status: 'SUCCEEDED', round: 1 });
    expect(callsTo('failing', 'enrich')).toHaveLength(2);
    expect(callsTo('failing', 'load')).toHaveLength(1);
    // Succeeded tasks are not called again, the alarm that ran included.
    expect(callsTo('failing', 'extract')).toHaveLength(before.extract);
    expect(callsTo('failing', 'clean')).toHaveLength(before.clean);
    expect(callsTo('failing', 'page-oncall')).toHaveLength(1);
    const again = await api('POST', `/v1/workflow-runs/${workflowRunId}/retry`);
    expect(again.status).toBe(409);
  }, 90_000);

  it('fans out 50 ways and fans in exactly once', async () => {
    const shards = Array.from({ length: 50 }, (_, index) => ({
      key: `shard-${index}`,
      target: { url: `${base}/fan/shard-${index}` },
    }));
    const merge = { key: 'merge', target: { url: `${base}/fan/merge` }, dependsOn: shards.map((shard) => shard.key) };
    const workflowId = await createWorkflow({ tasks: [...shards, merge] });
    const run = await ended(await trigger(workflowId), 60_000);
    expect(run.status).toBe('SUCCEEDED');
    expect(callsTo('fan', 'merge')).toHaveLength(1);
    const shardCalls = calls.filter((call) => call.path.startsWith('/fan/shard-'));
    expect(new Set(shardCalls.map((call) => call.path)).size).toBe(50);
    expect(shardCalls).toHaveLength(50);
    expect((callsTo('fan', 'merge')[0] as Call).at).toBeGreaterThanOrEqual(Math.max(...shardCalls.map((c) => c.at)));
  }, 90_000);

  it('keeps the version it started with across a PATCH made mid-run', async () => {
    answers.set('/pinned/slow', { delayMs: 1_500 });
    const workflowId = await createWorkflow({
      tasks: [
        { key: 'slow', target: { url: `${base}/pinned/slow` } },
        { key: 'next', target: { url: `${base}/pinned/next-v1` }, dependsOn: ['slow'] },
      ],
    });
    const workflowRunId = await trigger(workflowId);
    await eventually(
      async () => callsTo('pinned', 'slow').length,
      (count) => count === 1,
      20_000,
    );
    const current = await api('GET', `/v1/workflows/${workflowId}`);
    const patched = await api(
      'PATCH',
      `/v1/workflows/${workflowId}`,
      {
        tasks: [
          { key: 'slow', target: { url: `${base}/pinned/slow` } },
          { key: 'next', target: { url: `${base}/pinned/next-v2` }, dependsOn: ['slow'] },
        ],
      },
      { 'if-match': current.headers.get('etag') ?? '' },
    );
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.version).toBe(2);
    const run = await ended(workflowRunId);
    expect(run).toMatchObject({ status: 'SUCCEEDED', version: 1 });
    expect(callsTo('pinned', 'next-v1')).toHaveLength(1);
    expect(callsTo('pinned', 'next-v2')).toEqual([]);
    const next = await ended(await trigger(workflowId));
    expect(next.version).toBe(2);
    expect(callsTo('pinned', 'next-v2')).toHaveLength(1);
  }, 60_000);

  it('cancels a run: tasks not started end CANCELLED and are never called', async () => {
    answers.set('/cancel/first', { delayMs: 1_500 });
    const workflowId = await createWorkflow({
      tasks: [
        { key: 'first', target: { url: `${base}/cancel/first` } },
        { key: 'second', target: { url: `${base}/cancel/second` }, dependsOn: ['first'] },
      ],
    });
    const workflowRunId = await trigger(workflowId);
    await eventually(
      async () => callsTo('cancel', 'first').length,
      (count) => count === 1,
      20_000,
    );
    const cancelled = await api('POST', `/v1/workflow-runs/${workflowRunId}/cancel`);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(202);
    expect(cancelled.body.status).toBe('CANCELLED');
    expect(taskOf(cancelled.body, 'second').status).toBe('CANCELLED');
    // The call in progress ends with its call, recorded; nothing after it starts.
    const run = await eventually(
      () => api('GET', `/v1/workflow-runs/${workflowRunId}`),
      (got) => taskOf(got.body, 'first').status === 'SUCCEEDED',
      20_000,
    );
    expect(run.body.status).toBe('CANCELLED');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(callsTo('cancel', 'second')).toEqual([]);
    const onEnded = await api('POST', `/v1/workflow-runs/${workflowRunId}/cancel`);
    expect(onEnded.status).toBe(202);
  }, 60_000);

  it("stops a deleted workflow's queued tasks before their call; its run reads CANCELLED, and a cancel of it is a 202", async () => {
    answers.set('/deleted/slow', { delayMs: 1_500 });
    const workflowId = await createWorkflow({
      tasks: [
        { key: 'slow', target: { url: `${base}/deleted/slow` } },
        { key: 'next', target: { url: `${base}/deleted/next` }, dependsOn: ['slow'] },
      ],
    });
    const workflowRunId = await trigger(workflowId);
    await eventually(
      async () => callsTo('deleted', 'slow').length,
      (count) => count === 1,
      20_000,
    );
    expect((await api('DELETE', `/v1/workflows/${workflowId}`)).status).toBe(200);
    const run = await ended(workflowRunId);
    expect(run).toMatchObject({ status: 'CANCELLED', cancelRequestedAt: null });
    expect(taskOf(run, 'slow').status).toBe('SUCCEEDED');
    expect(taskOf(run, 'next')).toMatchObject({ status: 'CANCELLED', errorType: 'cancelled' });
    expect(callsTo('deleted', 'next')).toEqual([]);
    const cancelled = await api('POST', `/v1/workflow-runs/${workflowRunId}/cancel`);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(202);
  }, 60_000);

  it('starts by its schedule: an interval workflow runs every occurrence, as a job fires', async () => {
    const workflowId = await createWorkflow({
      schedule: { type: 'interval', everySeconds: 2 },
      tasks: [{ key: 'tick', target: { url: `${base}/scheduled/tick` } }],
    });
    await eventually(
      async () => callsTo('scheduled', 'tick').length,
      (count) => count >= 2,
      30_000,
    );
    const listed = await api('GET', `/v1/workflows/${workflowId}/runs`);
    expect(listed.body.items.length).toBeGreaterThanOrEqual(2);
    expect(listed.body.items.every((item: { triggered: boolean }) => item.triggered === false)).toBe(true);
    const deleted = await api('DELETE', `/v1/workflows/${workflowId}`);
    expect(deleted.status).toBeLessThan(300);
  }, 60_000);

  it('answers 404 for a workflow run id that is not the tenant’s or not an id at all', async () => {
    expect((await api('GET', '/v1/workflow-runs/nope')).status).toBe(404);
    expect((await api('GET', `/v1/workflow-runs/wf${'0'.repeat(26)}_1780000000000`)).status).toBe(404);
    expect((await api('POST', `/v1/workflows/wf${'0'.repeat(26)}/trigger`)).status).toBe(404);
    expect((await api('GET', `/v1/workflows/${'x'.repeat(2000)}/runs`)).status).toBe(404);
  });
});
