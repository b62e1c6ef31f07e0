/**
 * Long-running jobs end to end (issue #20): a target that takes each call's work with 202 and
 * reports back through the call's Chronos-Callback-Url, against the local runtime (API, scanner,
 * executor, completion handler on DynamoDB Local and fauxqs).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { eventually } from '../support/http-target.ts';
import { adminTenant } from './support/admin-tenant.ts';
import { type Api, apiAs } from './support/tenant-api.ts';

interface Call {
  path: string;
  callbackUrl: string;
  checkpoint?: string;
  attempt: number;
}

let chronos: LocalChronos;
let api: Api;
let server: Server;
let base: string;
const calls: Call[] = [];
/** How long the target waits before its 202, by path (the call is recorded at once). */
const delays = new Map<string, number>();

beforeAll(async () => {
  chronos = await startLocalChronos({ port: 0, scannerIntervalMs: 500, scanHorizonSeconds: 5, log: () => undefined });
  api = apiAs(chronos.apiUrl, chronos.token);
  server = createServer(async (req, res) => {
    for await (const _chunk of req) {
      // drained
    }
    const path = req.url ?? '/';
    const header = (name: string) => req.headers[name] as string | undefined;
    const runId = header('chronos-run-id') ?? '';
    calls.push({
      path,
      callbackUrl: header('chronos-callback-url') ?? '',
      ...(header('chronos-checkpoint') ? { checkpoint: header('chronos-checkpoint') } : {}),
      attempt: Number(runId.split('_')[2]),
    });
    const reply = () => res.writeHead(202).end('taken');
    const delay = delays.get(path);
    if (delay) setTimeout(reply, delay);
    else reply();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  await chronos?.stop();
  await new Promise((resolve) => server?.close(resolve));
});

const ASYNC = { heartbeatTimeoutSeconds: 5, maxDurationSeconds: 120, cancelGraceSeconds: 1 };

/** Creates an async one-time job due now; resolves with the first call its target got. */
async function asyncJob(path: string, extra: Record<string, unknown> = {}, as: Api = api) {
  const created = await as('POST', '/v1/jobs', {
    target: { url: `${base}${path}` },
    schedule: { type: 'once' },
    async: ASYNC,
    retry: { maxAttempts: 2, initialDelaySeconds: 1, maxDelaySeconds: 1 },
    ...extra,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const call = await eventually(
    async () => calls.find((c) => c.path === path),
    (found) => found !== undefined,
    20_000,
  );
  return { jobId: created.body.jobId as string, call: call as Call };
}

async function post(url: string, body: unknown) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function get(url: string) {
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
}

async function runsOf(jobId: string, as: Api = api) {
  return (await as('GET', `/v1/jobs/${jobId}/runs`)).body.items as Array<Record<string, unknown>>;
}

const runningAccepted = async (jobId: string) =>
  eventually(
    () => runsOf(jobId),
    (items) => items[0]?.status === 'RUNNING' && items[0]?.heartbeatDeadline !== null,
    15_000,
  );

describe('async jobs', () => {
  it('a worker takes the work (202), heartbeats progress and a checkpoint, and completes with output', async () => {
    const { jobId, call } = await asyncJob('/happy');
    expect(call.callbackUrl).toMatch(new RegExp(`^${chronos.apiUrl}/v1/callbacks/[A-Za-z0-9_-]+$`));
    await runningAccepted(jobId);
    const beat = await post(`${call.callbackUrl}/heartbeat`, {
      progress: 60,
      message: 'copied 600 of 1000 rows',
      checkpoint: { row: 600 },
    });
    expect(beat.status).toBe(200);
    expect(beat.body.cancelRequested).toBe(false);
    expect(Date.parse(beat.body.heartbeatDeadline)).toBeGreaterThan(Date.now());
    const [running] = await runsOf(jobId);
    expect(running).toMatchObject({ status: 'RUNNING', progress: 60, progressMessage: 'copied 600 of 1000 rows' });
    expect(running?.checkpointAt).toEqual(expect.any(String));

    const done = await post(`${call.callbackUrl}/complete`, { status: 'succeeded', output: { rows: 1000 } });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'SUCCEEDED', output: { rows: 1000 } });
    const [ended] = await runsOf(jobId);
    expect(ended).toMatchObject({ status: 'SUCCEEDED', output: { rows: 1000 }, progress: 60 });
    // The one-time job ends with its occurrence, as for a synchronous call.
    const job = await eventually(
      async () => (await api('GET', `/v1/jobs/${jobId}`)).body,
      (body) => body.status === 'COMPLETED',
      15_000,
    );
    expect(job.async).toEqual(ASYNC);
    // The same completion again: the first result. Another one: RUN_ENDED.
    expect((await post(`${call.callbackUrl}/complete`, { status: 'succeeded', output: { rows: 1000 } })).status).toBe(
      200,
    );
    const other = await post(`${call.callbackUrl}/complete`, { status: 'failed', error: 'late' });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('RUN_ENDED');
  }, 60_000);

  it('a worker that stops heartbeating times out; attempt 2 resumes from its checkpoint, and attempt 1 is fenced off', async () => {
    const { jobId, call } = await asyncJob('/silent');
    await runningAccepted(jobId);
    expect((await post(`${call.callbackUrl}/heartbeat`, { progress: 25, checkpoint: { page: 3 } })).status).toBe(200);
    // Silent from now on: ended within the heartbeat timeout plus a scanner interval, then retried.
    const second = await eventually(
      async () => calls.find((c) => c.path === '/silent' && c.attempt === 2),
      (found) => found !== undefined,
      30_000,
    );
    const items = await runsOf(jobId);
    const first = items.find((run) => run.attempt === 1);
    expect(first).toMatchObject({ status: 'TIMED_OUT', errorType: 'heartbeat_timeout' });
    expect(second?.checkpoint).toBe('present');
    expect(second?.callbackUrl).not.toBe(call.callbackUrl);
    const state = await get(second?.callbackUrl ?? '');
    expect(state.status).toBe(200);
    expect(state.body).toMatchObject({ attempt: 2, cancelRequested: false, checkpoint: { page: 3 } });
    // The first worker comes back: its attempt is over, whatever it says.
    const stale = await post(`${call.callbackUrl}/complete`, { status: 'succeeded' });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('RUN_ENDED');
    expect((await post(`${second?.callbackUrl}/complete`, { status: 'succeeded', output: 'resumed' })).status).toBe(
      200,
    );
    const ended = await runsOf(jobId);
    expect(ended.find((run) => run.attempt === 2)).toMatchObject({ status: 'SUCCEEDED', output: 'resumed' });
    expect(ended.find((run) => run.attempt === 1)?.status).toBe('TIMED_OUT');
  }, 60_000);

  it('a cancel is told through the next heartbeat and honoured; a silent worker’s run ends CANCELLED after the grace', async () => {
    const honoured = await asyncJob('/cancel-honoured');
    const silent = await asyncJob('/cancel-silent');
    const [running] = await runningAccepted(honoured.jobId);
    await runningAccepted(silent.jobId);
    const asked = await api('POST', `/v1/runs/${running?.runId}/cancel`);
    expect(asked.status).toBe(200);
    expect(asked.body.status).toBe('RUNNING');
    const beat = await post(`${honoured.call.callbackUrl}/heartbeat`, { progress: 10 });
    expect(beat.body.cancelRequested).toBe(true);
    const stopped = await post(`${honoured.call.callbackUrl}/complete`, { status: 'failed', error: 'cancelled' });
    expect(stopped.body).toMatchObject({ status: 'CANCELLED', error: 'cancelled' });
    // The one-time job's only occurrence was cancelled: the job ends CANCELLED with it.
    await eventually(
      async () => (await api('GET', `/v1/jobs/${honoured.jobId}`)).body.status,
      (status) => status === 'CANCELLED',
      15_000,
    );

    // Cancelling the job asks its async run to stop; its worker says nothing: CANCELLED after 1 s.
    expect((await api('DELETE', `/v1/jobs/${silent.jobId}`)).status).toBe(200);
    const ended = await eventually(
      () => runsOf(silent.jobId),
      (items) => items[0]?.status === 'CANCELLED',
      15_000,
    );
    expect(ended[0]).toMatchObject({ errorType: 'cancelled' });
    expect(calls.filter((c) => c.path === '/cancel-silent')).toHaveLength(1);
  }, 60_000);

  it('accepts a completion that races the 202', async () => {
    // The target's 202 leaves 2 s after the call came: the worker completes before it.
    delays.set('/racing', 2_000);
    const created = await api('POST', '/v1/jobs', {
      target: { url: `${base}/racing` },
      schedule: { type: 'once' },
      async: ASYNC,
    });
    const call = await eventually(
      async () => calls.find((c) => c.path === '/racing'),
      (found) => found !== undefined,
      20_000,
    );
    const done = await post(`${call?.callbackUrl}/complete`, { status: 'succeeded' });
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('SUCCEEDED');
    // The 202 comes after the end: the executor records nothing over it.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const items = await eventually(
      () => runsOf(created.body.jobId),
      (runs) => runs[0]?.status === 'SUCCEEDED',
      10_000,
    );
    expect(items).toHaveLength(1);
  }, 60_000);

  it('refuses forged, tampered and other-tenant tokens (401/404) and changes nothing', async () => {
    const other = (await adminTenant(chronos, 'async-other')).api;
    const mine = await asyncJob('/mine');
    const theirs = await asyncJob('/theirs', {}, other);
    await runningAccepted(mine.jobId);
    const token = mine.call.callbackUrl.split('/').pop() ?? '';
    const theirToken = theirs.call.callbackUrl.split('/').pop() ?? '';
    const at = (t: string) => `${chronos.apiUrl}/v1/callbacks/${t}`;
    expect((await post(`${at('forged')}/heartbeat`, {})).status).toBe(401);
    expect((await get(at('A'.repeat(300)))).status).toBe(401);
    const flipped = `${token.slice(0, 20)}${token[20] === 'A' ? 'B' : 'A'}${token.slice(21)}`;
    const tampered = await post(`${at(flipped)}/complete`, { status: 'succeeded' });
    expect(tampered.status).toBe(401);
    expect(tampered.body.error.code).toBe('INVALID_CALLBACK_TOKEN');
    // Their token's claims with my MAC, and mine with theirs: neither opens.
    const splice = theirToken.slice(0, -43) + token.slice(-43);
    expect((await post(`${at(splice)}/complete`, { status: 'succeeded' })).status).toBe(401);
    // A run id of theirs through my API token: not found; nothing changed on either run.
    const [theirRun] = await runsOf(theirs.jobId, other);
    expect((await api('POST', `/v1/runs/${theirRun?.runId}/cancel`)).status).toBe(404);
    expect((await api('GET', `/v1/runs/${theirRun?.runId}`)).status).toBe(404);
    expect((await runsOf(mine.jobId))[0]?.status).toBe('RUNNING');
    expect((await runsOf(theirs.jobId, other))[0]?.cancelRequestedAt ?? null).toBeNull();
  }, 60_000);
});
