/**
 * A job always ends in a state consistent with its runs, whatever management call lands at an
 * awkward moment: a one-time job paused while its call is in flight, during a retry backoff or
 * with its run queued; a PATCH of `schedule.at` while the old run is in flight; triggers of a
 * paused job; a recurring job with nothing left to fire; resume catch-up that includes the final
 * occurrence; concurrent triggers with different Idempotency-Keys.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { eventually, type HttpTarget, type RecordedCall, startHttpTarget } from '../support/http-target.ts';
import { type Answer, type Api, apiAs } from './support/tenant-api.ts';

let chronos: LocalChronos;
let target: HttpTarget;
let api: Api;
/** Calls per path so far: the flaky paths fail their first call only. */
const seen = new Map<string, number>();

beforeAll(async () => {
  target = await startHttpTarget((path) => {
    const calls = (seen.get(path) ?? 0) + 1;
    seen.set(path, calls);
    if (path.startsWith('/slow')) return { status: 200, delayMs: 2_500 };
    if (path.startsWith('/flaky') && calls === 1) return { status: 503, headers: { 'retry-after': '2' } };
    return { status: 200 };
  });
  chronos = await startLocalChronos({
    port: 0,
    scannerIntervalMs: 1_000,
    scanHorizonSeconds: 2,
    log: () => undefined,
  });
  api = apiAs(chronos.apiUrl, chronos.token);
});
afterAll(async () => {
  await chronos?.stop();
  await target?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const iso = (ms: number) => new Date(ms).toISOString();
/** The attempt a call was for, from its Chronos-Run-Id `<jobId>_<scheduledFor>_<attempt>`. */
const attemptOf = (call: RecordedCall) => Number(String(call.headers['chronos-run-id']).split('_')[2]);

async function createJob(body: Record<string, unknown>, as: Api = api): Promise<{ jobId: string; version: number }> {
  const created = await as('POST', '/v1/jobs', body);
  expect(created.status).toBe(201);
  return created.body;
}

type RunItem = { runId: string; scheduledFor: string; attempt: number; status: string; errorType: string | null };
const runsOf = async (jobId: string, as: Api = api): Promise<RunItem[]> =>
  (await as('GET', `/v1/jobs/${jobId}/runs?limit=100`)).body.items;
const jobOf = async (jobId: string, as: Api = api) => (await as('GET', `/v1/jobs/${jobId}`)).body;
const statusOf = (answer: Answer) => answer.status;

describe('a one-time job paused at an awkward moment ends consistently after resume', () => {
  it('paused while its call is in flight: completes from that call after resume', async () => {
    const job = await createJob({ target: { url: target.url('/slow-inflight') }, schedule: { type: 'once' } });
    await target.waitForCalls('/slow-inflight', 1, 10_000);

    expect(statusOf(await api('POST', `/v1/jobs/${job.jobId}/pause`))).toBe(200);
    await eventually(
      () => runsOf(job.jobId),
      (runs) => runs[0]?.status === 'SUCCEEDED',
      15_000,
    );
    // Its completion (the runs stream) comes and goes while the job is still paused.
    await sleep(2_000);
    expect((await jobOf(job.jobId)).status).toBe('PAUSED');
    expect(statusOf(await api('POST', `/v1/jobs/${job.jobId}/resume`))).toBe(200);

    const ended = await eventually(
      () => jobOf(job.jobId),
      (j) => j.status !== 'ACTIVE',
      15_000,
    );
    expect(ended).toMatchObject({ status: 'COMPLETED', nextFireAt: null });
    expect(target.callsTo('/slow-inflight')).toHaveLength(1);
  }, 60_000);

  it('paused during a retry backoff: the skipped retry fires again after resume, and the job completes', async () => {
    const job = await createJob({
      target: { url: target.url('/flaky-backoff') },
      schedule: { type: 'once' },
      retry: { maxAttempts: 3, initialDelaySeconds: 1, maxDelaySeconds: 5 },
    });
    // The first call answers 503 with Retry-After 2: attempt 2 waits at least 2 s, QUEUED.
    await eventually(
      () => runsOf(job.jobId),
      (runs) => runs.some((run) => run.attempt === 2 && run.status === 'QUEUED'),
      15_000,
    );
    expect(statusOf(await api('POST', `/v1/jobs/${job.jobId}/pause`))).toBe(200);
    await eventually(
      () => runsOf(job.jobId),
      (runs) => runs.some((run) => run.attempt === 2 && run.status === 'SKIPPED' && run.errorType === 'paused'),
      15_000,
    );

    expect(statusOf(await api('POST', `/v1/jobs/${job.jobId}/resume`))).toBe(200);

    const ended = await eventually(
      () => jobOf(job.jobId),
      (j) => j.status !== 'ACTIVE',
      15_000,
    );
    expect(ended.status).toBe('COMPLETED');
    expect(target.callsTo('/flaky-backoff').map(attemptOf)).toEqual([1, 3]);
  }, 60_000);

  it('paused with its due run still queued: the run is skipped, and fires after resume', async () => {
    // A tenant with one call in flight at most: its second job's run waits QUEUED behind the first.
    const capped = await chronos.tenants.create('capped', { maxConcurrentRuns: 1 });
    const as = apiAs(chronos.apiUrl, capped.token.token);
    await createJob({ target: { url: target.url('/slow-blocker') }, schedule: { type: 'once' } }, as);
    await target.waitForCalls('/slow-blocker', 1, 5_000);
    const job = await createJob({ target: { url: target.url('/queued') }, schedule: { type: 'once' } }, as);
    expect((await runsOf(job.jobId, as))[0]?.status).toBe('QUEUED');

    expect(statusOf(await as('POST', `/v1/jobs/${job.jobId}/pause`))).toBe(200);
    await eventually(
      () => runsOf(job.jobId, as),
      (runs) => runs[0]?.status === 'SKIPPED',
      15_000,
    );
    expect(statusOf(await as('POST', `/v1/jobs/${job.jobId}/resume`))).toBe(200);

    const ended = await eventually(
      () => jobOf(job.jobId, as),
      (j) => j.status !== 'ACTIVE',
      15_000,
    );
    expect(ended.status).toBe('COMPLETED');
    expect(target.callsTo('/queued')).toHaveLength(1);
  }, 60_000);
});

describe('rescheduling a one-time job while its old run is in flight', () => {
  it("fires the new time, and the old run's completion does not finish the job", async () => {
    const job = await createJob({ target: { url: target.url('/slow-patched') }, schedule: { type: 'once' } });
    await target.waitForCalls('/slow-patched', 1, 5_000);
    const read = await api('GET', `/v1/jobs/${job.jobId}`);
    const newAt = Math.ceil((Date.now() + 5_000) / 1000) * 1000;

    const patched = await api(
      'PATCH',
      `/v1/jobs/${job.jobId}`,
      { schedule: { type: 'once', at: iso(newAt) } },
      { 'if-match': read.headers.get('etag') as string },
    );
    expect(patched.status).toBe(200);
    const runs = await eventually(
      () => runsOf(job.jobId),
      (items) => items.some((run) => Date.parse(run.scheduledFor) !== newAt && run.status === 'SUCCEEDED'),
      15_000,
    );
    expect(runs.find((run) => Date.parse(run.scheduledFor) === newAt)?.status).not.toBe('SUCCEEDED');
    expect((await jobOf(job.jobId)).status).toBe('ACTIVE');

    const ended = await eventually(
      () => jobOf(job.jobId),
      (j) => j.status !== 'ACTIVE',
      15_000,
    );
    expect(ended.status).toBe('COMPLETED');
    expect(Date.parse(ended.latestRun.scheduledFor)).toBe(newAt);
    expect(target.callsTo('/slow-patched')).toHaveLength(2);
  }, 60_000);
});

describe('triggering a paused job', () => {
  it('refuses a paused one-time job that has not run (409) and creates no run', async () => {
    const job = await createJob({
      target: { url: target.url('/paused-once') },
      schedule: { type: 'once', at: iso(Date.now() + 3_600_000) },
    });
    expect(statusOf(await api('POST', `/v1/jobs/${job.jobId}/pause`))).toBe(200);

    expect(statusOf(await api('POST', `/v1/jobs/${job.jobId}/trigger`))).toBe(409);
    expect(await runsOf(job.jobId)).toEqual([]);
  });

  it('refuses to trigger a paused recurring job (409): pause stops a job that triggers itself', async () => {
    const job = await createJob({
      target: { url: target.url('/paused-recurring') },
      schedule: { type: 'interval', everySeconds: 3600, startAt: iso(Date.now() + 3_600_000) },
    });
    expect(statusOf(await api('POST', `/v1/jobs/${job.jobId}/pause`))).toBe(200);

    expect(statusOf(await api('POST', `/v1/jobs/${job.jobId}/trigger`))).toBe(409);
    expect(await runsOf(job.jobId)).toEqual([]);
  });

  it('does not skip the retry of a run triggered before the pause', async () => {
    const job = await createJob({
      target: { url: target.url('/flaky-trigger') },
      schedule: { type: 'interval', everySeconds: 3600, startAt: iso(Date.now() + 3_600_000) },
      retry: { maxAttempts: 3, initialDelaySeconds: 1, maxDelaySeconds: 5 },
    });
    expect(statusOf(await api('POST', `/v1/jobs/${job.jobId}/trigger`))).toBe(202);
    // Its first attempt answers 503 with Retry-After: 2; the job is paused before the retry.
    await target.waitForCalls('/flaky-trigger', 1, 10_000);
    expect(statusOf(await api('POST', `/v1/jobs/${job.jobId}/pause`))).toBe(200);

    const runs = await eventually(
      () => runsOf(job.jobId),
      (items) => items.some((run) => run.attempt === 2 && ['SUCCEEDED', 'SKIPPED'].includes(run.status)),
      10_000,
    );
    expect(runs.find((run) => run.attempt === 2)?.status).toBe('SUCCEEDED');
    expect(target.callsTo('/flaky-trigger').map(attemptOf)).toEqual([1, 2]);
  }, 60_000);
});

describe('a recurring job with no occurrence left when it is created', () => {
  it('is refused with 400 naming schedule.endAt, and nothing is stored', async () => {
    const name = `over-${Date.now()}`;
    const answer = await api('POST', '/v1/jobs', {
      name,
      target: { url: target.url('/over') },
      schedule: {
        type: 'interval',
        everySeconds: 60,
        startAt: iso(Date.now() - 7_200_000),
        endAt: iso(Date.now() - 3_600_000),
      },
    });

    expect(answer.status).toBe(400);
    expect(answer.body.error.details).toEqual([{ field: 'schedule.endAt', reason: 'has no occurrence from now on' }]);
    expect((await api('GET', `/v1/jobs?name=${name}`)).body.items).toEqual([]);
  });
});

describe('resume catch-up that includes the final occurrence', () => {
  it('completes the job after the catch-up run ran, not when it is enqueued', async () => {
    const startAt = Math.ceil((Date.now() + 4_000) / 1000) * 1000;
    const job = await createJob({
      target: { url: target.url('/slow-catch-up') },
      schedule: { type: 'interval', everySeconds: 1, startAt: iso(startAt), endAt: iso(startAt + 1_500) },
      misfire: 'fire_once',
    });
    // Paused before its first occurrence is materialized (beyond the 2 s horizon)...
    const paused = await api('POST', `/v1/jobs/${job.jobId}/pause`);
    expect(paused.body).toMatchObject({ status: 'PAUSED' });
    expect(await runsOf(job.jobId)).toEqual([]);
    // ...and resumed once the whole schedule is over: one catch-up run, of the final occurrence.
    await sleep(startAt + 2_500 - Date.now());

    const resumed = await api('POST', `/v1/jobs/${job.jobId}/resume`);

    expect(resumed.body).toMatchObject({ status: 'ACTIVE', nextFireAt: null });
    const [call] = await target.waitForCalls('/slow-catch-up', 1, 5_000);
    expect((await jobOf(job.jobId)).status).toBe('ACTIVE'); // its call takes 2.5 s
    const ended = await eventually(
      () => jobOf(job.jobId),
      (j) => j.status !== 'ACTIVE',
      15_000,
    );
    expect(ended.status).toBe('COMPLETED');
    expect(Date.parse(ended.latestRun.scheduledFor)).toBe(startAt + 1_000);
    expect(ended.latestRun.status).toBe('SUCCEEDED');
    expect(Date.parse(ended.updatedAt)).toBeGreaterThan((call as RecordedCall).at);
  }, 60_000);
});

describe('concurrent triggers', () => {
  it('gives every Idempotency-Key its own run, and one run to all requests with the same key', async () => {
    const job = await createJob({
      target: { url: target.url('/concurrent') },
      schedule: { type: 'interval', everySeconds: 3600, startAt: iso(Date.now() + 3_600_000) },
    });
    const keys = Array.from({ length: 12 }, (_, i) => `key-${i}`);
    const trigger = (key: string) =>
      api('POST', `/v1/jobs/${job.jobId}/trigger`, undefined, { 'idempotency-key': key });

    const answers = await Promise.all([...keys.map(trigger), ...Array.from({ length: 6 }, () => trigger('same'))]);

    expect(answers.map(statusOf).every((status) => status === 202)).toBe(true);
    const distinct = answers.slice(0, keys.length).map((answer) => answer.body.runId);
    const same = answers.slice(keys.length).map((answer) => answer.body.runId);
    expect(new Set(distinct).size).toBe(keys.length);
    expect(new Set(same).size).toBe(1);
    expect(distinct).not.toContain(same[0]);
    const calls = await target.waitForCalls('/concurrent', keys.length + 1, 10_000);
    await sleep(1_500);
    expect(target.callsTo('/concurrent')).toHaveLength(keys.length + 1);
    expect(new Set(calls.map((call) => call.headers['chronos-run-id'])).size).toBe(keys.length + 1);
  }, 60_000);
});
