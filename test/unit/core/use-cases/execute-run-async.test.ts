/**
 * The executor and async jobs (core/use-cases/async/async-call.ts): the call carries its attempt's
 * callback URL, a 202 makes the run an accepted async run instead of an outcome, any other answer
 * is recorded as for every job, and a retry after a checkpoint says so.
 */
import { describe, expect, it } from 'vitest';
import { openCallbackToken } from '#core/async/callback-token';
import type { Job } from '#core/model';
import type { HttpRequest, HttpResult } from '#core/ports';
import { fixedSigningKeys, newSigningSecret } from '#core/signing';
import { executeRun, FailedBeforeCallError } from '#core/use-cases/execute-run';
import { newRun } from '#core/use-cases/new-run';
import { FakeClock, ScriptedInvoker } from '../../../support/fakes/fakes.ts';
import { InMemoryAsyncRunStore } from '../../../support/fakes/in-memory-async-runs.ts';
import { InMemoryJobRepository } from '../../../support/fakes/in-memory-jobs.ts';
import { InMemoryRunRepository } from '../../../support/fakes/in-memory-runs.ts';
import { jobFixture } from '../../../support/job-fixture.ts';

const DUE = Date.parse('2026-06-01T12:00:00Z');
const KEY = 'a'.repeat(43);
const SETTINGS = { heartbeatTimeoutSeconds: 30, maxDurationSeconds: 600, cancelGraceSeconds: 10 };

const asyncJob: Job = jobFixture(DUE, {
  schedule: { type: 'interval', everySeconds: 3600, startAt: DUE },
  async: SETTINGS,
});

const answering =
  (status: number) =>
  (_request: HttpRequest): Omit<HttpResult, 'startedAt'> =>
    ({ kind: 'response', status, bodyExcerpt: '', durationMs: 5 }) as Omit<HttpResult, 'startedAt'>;

async function setup(job: Job, status: number, options: { withAsync?: boolean; attempt?: number } = {}) {
  const jobs = new InMemoryJobRepository();
  const runs = new InMemoryRunRepository();
  const store = new InMemoryAsyncRunStore(runs);
  const clock = new FakeClock(DUE - 100);
  const invoker = new ScriptedInvoker(clock, answering(status));
  await jobs.create(job);
  const attempt = options.attempt ?? 1;
  const run = newRun(job, DUE, attempt, DUE - 60_000, 7);
  await runs.createIfAbsent(run);
  const deps = {
    jobs,
    runs,
    invoker,
    signingKeys: fixedSigningKeys([newSigningSecret()]),
    clock,
    random: () => 0.5,
    config: { leaseMarginMs: 30_000, owner: 'exec-1' },
    ...(options.withAsync === false
      ? {}
      : { async: { store, keys: { keys: async () => [KEY] }, baseUrl: () => 'https://api.test', shardCount: 4 } }),
  };
  const message = { tenantId: job.tenantId, jobId: job.jobId, scheduledFor: DUE, attempt, runId: run.runId };
  return { jobs, runs, store, clock, invoker, deps, message };
}

describe('the executor and async jobs', () => {
  it('calls with the attempt’s callback URL and records a 202 as the run’s acceptance, not its outcome', async () => {
    const { deps, message, invoker, runs } = await setup(asyncJob, 202);
    const result = await executeRun(deps, message);
    expect(result.kind).toBe('accepted');
    const headers = invoker.requests[0]?.headers ?? {};
    const url = headers['Chronos-Callback-Url'] ?? '';
    expect(url.startsWith('https://api.test/v1/callbacks/')).toBe(true);
    const opened = openCallbackToken(url.slice('https://api.test/v1/callbacks/'.length), [KEY]);
    expect(opened).toEqual({
      ok: true,
      claims: { tenantId: message.tenantId, jobId: message.jobId, scheduledFor: DUE, attempt: 1 },
    });
    expect(headers).not.toHaveProperty('Chronos-Checkpoint');
    const run = await runs.get(message);
    expect(run).toMatchObject({
      status: 'RUNNING',
      async: SETTINGS,
      acceptedAt: DUE,
      heartbeatDeadline: DUE + 30_000,
      maxDurationDeadline: DUE - 100 + 600_000,
      leaseExpiresAt: DUE - 100 + 600_000,
      deadlineAt: DUE + 30_000,
    });
    // The call is recorded as a synchronous one's is (its start, for the start lag and the SLA), not its end.
    expect(run).toMatchObject({ startedAt: DUE, httpStatus: 202 });
    expect(run?.completedAt).toBeUndefined();
  });

  it('records any other answer of an async job as for every job: a 200 succeeds, a 500 is retried', async () => {
    const ok = await setup(asyncJob, 200);
    expect((await executeRun(ok.deps, ok.message)).kind).toBe('called');
    expect(await ok.runs.get(ok.message)).toMatchObject({ status: 'SUCCEEDED', httpStatus: 200 });
    const failed = await setup(asyncJob, 500);
    await executeRun(failed.deps, failed.message);
    const run = await failed.runs.get(failed.message);
    expect(run).toMatchObject({ status: 'FAILED', httpStatus: 500 });
    expect(run?.nextAttemptAt).toBeGreaterThan(DUE);
    expect(run?.acceptedAt).toBeUndefined();
  });

  it('a synchronous job’s 202 is a success, as before, and its call carries no callback URL', async () => {
    const sync = await setup(jobFixture(DUE), 202);
    expect((await executeRun(sync.deps, sync.message)).kind).toBe('called');
    expect(await sync.runs.get(sync.message)).toMatchObject({ status: 'SUCCEEDED', httpStatus: 202 });
    expect(sync.invoker.requests[0]?.headers).not.toHaveProperty('Chronos-Callback-Url');
    expect((await sync.runs.get(sync.message))?.async).toBeUndefined();
  });

  it('does not call an async job without the callback configuration, and gives the claim back', async () => {
    const { deps, message, invoker, runs } = await setup(asyncJob, 202, { withAsync: false });
    await expect(executeRun(deps, message)).rejects.toBeInstanceOf(FailedBeforeCallError);
    expect(invoker.requests).toHaveLength(0);
    expect((await runs.get(message))?.status).toBe('QUEUED');
  });

  it('keeps an overlap-forbid job’s in-flight marker until the accepted run’s max duration', async () => {
    const forbid = { ...asyncJob, policies: { ...asyncJob.policies, overlap: 'forbid' as const } };
    const { deps, message, jobs } = await setup(forbid, 202);
    await executeRun(deps, message);
    const stored = (await jobs.get(forbid.tenantId, forbid.jobId)) as { inFlight?: { until: number } };
    expect(stored.inFlight?.until).toBe(DUE - 100 + 600_000 + 30_000);
  });

  it('tells a retry that an earlier attempt left a checkpoint', async () => {
    const { deps, message, invoker, runs } = await setup(asyncJob, 202, { attempt: 2 });
    const first = { ...newRun(asyncJob, DUE, 1, DUE - 60_000, 7), status: 'TIMED_OUT' as const };
    await runs.createIfAbsent({ ...first, checkpointJson: '{"step":3}', checkpointAt: DUE - 30_000 });
    await executeRun(deps, message);
    expect(invoker.requests[0]?.headers['Chronos-Checkpoint']).toBe('present');
  });
});
