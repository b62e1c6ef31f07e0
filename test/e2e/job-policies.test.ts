/**
 * A job's retry policy, delivery mode and onFailure URL through the local runtime: the job view
 * shows them (defaults filled in), PATCH changes them with creation's rules, and what a PATCH set
 * is what the runs after it follow.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { eventually, type HttpTarget, startHttpTarget } from '../support/http-target.ts';

let chronos: LocalChronos;
/** Answers 500 under /fail, 200 elsewhere (the onFailure endpoints). */
let target: HttpTarget;

beforeAll(async () => {
  target = await startHttpTarget((path) => ({ status: path.startsWith('/fail') ? 500 : 200 }));
  chronos = await startLocalChronos({
    port: 0,
    scannerIntervalMs: 2_000,
    scanHorizonSeconds: 10,
    log: () => undefined,
  });
});
afterAll(async () => {
  await chronos?.stop();
  await target?.close();
});

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked field by field
  body: any;
}

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${chronos.apiUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${chronos.token}`, ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined } as Answer;
}

const iso = (ms: number) => new Date(ms).toISOString();
/** A recurring job that will not fire by itself during the test: its runs come from triggers. */
const dormant = () => ({ type: 'interval', everySeconds: 3600, startAt: iso(Date.now() + 3_600_000) });

async function createJob(body: Record<string, unknown>) {
  const created = await api('POST', '/v1/jobs', { schedule: dormant(), ...body });
  expect(created.status).toBe(201);
  return created.body as { jobId: string; version: number } & Record<string, unknown>;
}

async function patch(jobId: string, body: unknown) {
  const current = await api('GET', `/v1/jobs/${jobId}`);
  return api('PATCH', `/v1/jobs/${jobId}`, body, { 'if-match': String(current.body.version) });
}

async function trigger(jobId: string) {
  expect((await api('POST', `/v1/jobs/${jobId}/trigger`)).status).toBe(202);
}

/** The job's runs once every one has ended. */
const endedRunsOf = (jobId: string) =>
  eventually(
    async () => (await api('GET', `/v1/jobs/${jobId}/runs`)).body.items as Array<Record<string, unknown>>,
    (runs) => runs.length > 0 && runs.every((run) => !['QUEUED', 'RUNNING'].includes(run.status as string)),
    20_000,
  );

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Every retry here waits at most 1 s: past this, a retry that was going to come has come. */
const RETRY_WINDOW_MS = 3_000;
const QUICK_RETRY = { initialDelaySeconds: 1, maxDelaySeconds: 1 };

const DEFAULT_RETRY = { maxAttempts: 3, initialDelaySeconds: 1, maxDelaySeconds: 300, multiplier: 2, retryOn: [] };

describe('the job view', () => {
  it('shows retry, delivery and onFailure as created, and their defaults when not given', async () => {
    const name = `policies-${Date.now()}`;
    const given = await createJob({
      name: `${name}-given`,
      target: { url: target.url('/ok') },
      retry: { maxAttempts: 5, initialDelaySeconds: 2, maxDelaySeconds: 60, multiplier: 1.5, retryOn: [409, 423] },
      delivery: 'at-most-once',
      onFailure: { url: target.url('/on-failure') },
    });
    const plain = await createJob({ name: `${name}-plain`, target: { url: target.url('/ok') } });

    const read = await api('GET', `/v1/jobs/${given.jobId}`);
    const listed = await api('GET', `/v1/jobs?name=${name}`);

    const asGiven = {
      retry: { maxAttempts: 5, initialDelaySeconds: 2, maxDelaySeconds: 60, multiplier: 1.5, retryOn: [409, 423] },
      delivery: 'at-most-once',
      onFailure: { url: target.url('/on-failure') },
    };
    const defaults = { retry: DEFAULT_RETRY, delivery: 'at-least-once', onFailure: null };
    expect(given).toMatchObject(asGiven);
    expect(read.body).toMatchObject(asGiven);
    expect(plain).toMatchObject(defaults);
    expect(listed.body.items).toMatchObject([asGiven, defaults]);
  });
});

describe('PATCH of retry, delivery and onFailure', () => {
  it('changes each, bumping the version, and removes onFailure on null', async () => {
    const job = await createJob({ target: { url: target.url('/ok') }, onFailure: { url: target.url('/old') } });

    const retry = await patch(job.jobId, { retry: { maxAttempts: 2, retryOn: [409] } });
    const delivery = await patch(job.jobId, { delivery: 'at-most-once' });
    const onFailure = await patch(job.jobId, { onFailure: { url: target.url('/new') } });
    const removed = await patch(job.jobId, { onFailure: null });
    const read = await api('GET', `/v1/jobs/${job.jobId}`);

    // A retry policy is replaced whole: the fields left out are at their defaults again.
    expect(retry).toMatchObject({ status: 200, body: { retry: { ...DEFAULT_RETRY, maxAttempts: 2, retryOn: [409] } } });
    expect(delivery).toMatchObject({ status: 200, body: { delivery: 'at-most-once' } });
    expect(onFailure).toMatchObject({ status: 200, body: { onFailure: { url: target.url('/new') } } });
    expect(removed).toMatchObject({ status: 200, body: { onFailure: null } });
    expect([retry, delivery, onFailure, removed].map((answer) => answer.body.version)).toEqual(
      [1, 2, 3, 4].map((step) => job.version + step),
    );
    expect(read.body).toMatchObject({
      retry: { ...DEFAULT_RETRY, maxAttempts: 2, retryOn: [409] },
      delivery: 'at-most-once',
      onFailure: null,
      version: job.version + 4,
    });
  });

  it.each([
    [{ retry: { maxAttempts: 21 } }, 'retry.maxAttempts'],
    [{ retry: { maxAttempts: 0 } }, 'retry.maxAttempts'],
    [{ retry: { initialDelaySeconds: 600, maxDelaySeconds: 60 } }, 'retry.initialDelaySeconds'],
    [{ retry: { retryOn: [429] } }, 'retry.retryOn'],
    [{ retry: { backoff: 'linear' } }, 'retry.backoff'],
    [{ delivery: 'exactly-once' }, 'delivery'],
    [{ onFailure: { url: 'http://169.254.169.254/latest/meta-data' } }, 'onFailure.url'],
    [{ onFailure: {} }, 'onFailure.url'],
    [{ onFailure: 'https://example.com/' }, 'onFailure'],
  ])('answers %j with 400 naming %s and changes nothing', async (body, field) => {
    const job = await createJob({
      target: { url: target.url('/ok') },
      retry: { maxAttempts: 4 },
      onFailure: { url: target.url('/kept') },
    });

    const answer = await patch(job.jobId, body);
    const after = await api('GET', `/v1/jobs/${job.jobId}`);

    expect(answer.status).toBe(400);
    expect(answer.body.error.details.map((detail: { field: string }) => detail.field)).toContain(field);
    expect(after.body).toMatchObject({
      version: job.version,
      retry: { ...DEFAULT_RETRY, maxAttempts: 4 },
      delivery: 'at-least-once',
      onFailure: { url: target.url('/kept') },
    });
  });
});

describe('runs after a PATCH follow it', () => {
  it('retries a failing run per the PATCHed policy: maxAttempts 1 → 2 makes two calls, at-most-once one', async () => {
    const unchanged = await createJob({
      target: { url: target.url('/fail/unchanged') },
      retry: { maxAttempts: 1, ...QUICK_RETRY },
    });
    const raised = await createJob({ target: { url: target.url('/fail/raised') }, retry: { maxAttempts: 1 } });
    const atMostOnce = await createJob({
      target: { url: target.url('/fail/at-most-once') },
      retry: { maxAttempts: 3, ...QUICK_RETRY },
    });
    expect((await patch(raised.jobId, { retry: { maxAttempts: 2, ...QUICK_RETRY } })).status).toBe(200);
    expect((await patch(atMostOnce.jobId, { delivery: 'at-most-once' })).status).toBe(200);

    await Promise.all([unchanged, raised, atMostOnce].map((job) => trigger(job.jobId)));
    await target.waitForCalls('/fail/raised', 2, 20_000);
    await sleep(RETRY_WINDOW_MS);

    expect(target.callsTo('/fail/raised')).toHaveLength(2);
    expect(target.callsTo('/fail/unchanged')).toHaveLength(1);
    expect(target.callsTo('/fail/at-most-once')).toHaveLength(1);
    expect((await endedRunsOf(raised.jobId)).map((run) => [run.attempt, run.status])).toEqual([
      [2, 'FAILED'],
      [1, 'FAILED'],
    ]);
    expect((await endedRunsOf(unchanged.jobId)).map((run) => [run.attempt, run.status])).toEqual([[1, 'FAILED']]);
    expect((await endedRunsOf(atMostOnce.jobId)).map((run) => [run.attempt, run.status])).toEqual([[1, 'FAILED']]);
  }, 40_000);

  it('sends a failure notice to the PATCHed onFailure URL, and none once it is removed', async () => {
    const moved = await createJob({
      target: { url: target.url('/fail/moved') },
      retry: { maxAttempts: 1 },
      onFailure: { url: target.url('/notice/before-move') },
    });
    const removed = await createJob({
      target: { url: target.url('/fail/removed') },
      retry: { maxAttempts: 1 },
      onFailure: { url: target.url('/notice/removed') },
    });
    expect((await patch(moved.jobId, { onFailure: { url: target.url('/notice/after-move') } })).status).toBe(200);
    expect((await patch(removed.jobId, { onFailure: null })).status).toBe(200);

    await Promise.all([trigger(moved.jobId), trigger(removed.jobId)]);
    await Promise.all([endedRunsOf(moved.jobId), endedRunsOf(removed.jobId)]);
    const [notice] = await target.waitForCalls('/notice/after-move', 1, 10_000);
    // Both failures went through the same completion handler and notifier: the other's notice would be out by now.
    await sleep(RETRY_WINDOW_MS);

    expect(JSON.parse(notice?.body ?? '{}')).toMatchObject({ event: 'occurrence.failed', jobId: moved.jobId });
    expect(target.callsTo('/notice/before-move')).toHaveLength(0);
    expect(target.callsTo('/notice/removed')).toHaveLength(0);
  }, 40_000);
});
