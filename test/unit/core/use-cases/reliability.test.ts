import { describe, expect, it, vi } from 'vitest';
import { ConflictError } from '#core/errors';
import type { Job } from '#core/model';
import type { HttpRequest, HttpResult } from '#core/ports';
import { DEFAULT_SWEEP_GRACE_MS } from '#core/runs/send-runs';
import { fixedSigningKeys, newSigningSecret } from '#core/signing';
import { completeRun } from '#core/use-cases/complete-run';
import { recordDeadLetter, redriveRun } from '#core/use-cases/dead-letters';
import { executeRun } from '#core/use-cases/execute-run';
import { newRun } from '#core/use-cases/new-run';
import { MAX_RESWEEP_INTERVAL_MS, nextSweepAt, sweepRuns } from '#core/use-cases/sweep-runs';
import { FakeClock, RecordingDispatcher, RecordingNotices, ScriptedInvoker } from '../../../support/fakes/fakes.ts';
import { InMemoryJobRepository } from '../../../support/fakes/in-memory-jobs.ts';
import { InMemoryRunRepository } from '../../../support/fakes/in-memory-runs.ts';
import { jobFixture } from '../../../support/job-fixture.ts';

const DUE = Date.parse('2026-06-01T12:00:00Z');

const baseJob: Job = jobFixture(DUE, {
  retry: { maxAttempts: 3, initialDelaySeconds: 10, maxDelaySeconds: 3_600, multiplier: 2 },
  onFailureUrl: 'https://example.com/failed',
  timeoutSeconds: 5,
  version: 2,
});

type Answer = (r: HttpRequest) => Omit<HttpResult, 'startedAt'>;
const answer500: Answer = () => ({ kind: 'response', status: 500, bodyExcerpt: 'boom', durationMs: 3 });

async function world(job: Partial<Job> = {}, answer: Answer = answer500) {
  const jobs = new InMemoryJobRepository();
  const runs = new InMemoryRunRepository();
  const dispatcher = new RecordingDispatcher();
  const clock = new FakeClock(DUE);
  const invoker = new ScriptedInvoker(clock, answer);
  await jobs.create({ ...baseJob, ...job });
  const executor = (owner: string) => ({
    jobs,
    runs,
    invoker,
    signingKeys: fixedSigningKeys([newSigningSecret()]),
    clock,
    random: () => 0.5,
    config: { leaseMarginMs: 30_000, owner },
  });
  const notices = new RecordingNotices();
  const completion = { jobs, runs, dispatcher, notices, config: { retentionDays: 7 } };
  const first = newRun(baseJob, DUE, 1, DUE - 1_000, 7);
  await runs.createIfAbsent(first);
  const message = (attempt: number) => ({
    tenantId: 't',
    jobId: 'J1',
    scheduledFor: DUE,
    attempt,
    runId: `J1_${DUE}_${attempt}`,
  });
  return { jobs, runs, dispatcher, clock, invoker, notices, executor, completion, message };
}

describe('retries', () => {
  it('marks a retryable failure with the time of the next attempt, using jittered backoff', async () => {
    const { executor, message, runs } = await world();

    const result = await executeRun(executor('e'), message(1));

    expect(result.kind === 'called' && result.outcome.nextAttemptAt).toBe(DUE + 5_000); // 0.5 × 10 s
    expect(await runs.get(message(1))).toMatchObject({ status: 'FAILED', nextAttemptAt: DUE + 5_000 });
  });

  it('creates the next attempt of the same occurrence and sends it with the backoff as delay', async () => {
    const { executor, message, runs, dispatcher, completion, jobs } = await world();
    await executeRun(executor('e'), message(1));
    const failed = (await runs.get(message(1))) as never;

    expect(await completeRun(completion, { ...(failed as object), status: 'FAILED' } as never, DUE)).toBe(
      'retry-scheduled',
    );

    expect(await runs.get(message(2))).toMatchObject({
      status: 'QUEUED',
      attempt: 2,
      scheduledFor: DUE,
      availableAt: DUE + 5_000,
    });
    expect(dispatcher.sent).toEqual([{ message: message(2), releaseAt: DUE + 5_000 }]);
    expect((await jobs.get('t', 'J1'))?.status).toBe('ACTIVE');
  });

  it('stops after maxAttempts, fails the one-time job and queues one onFailure notice', async () => {
    const { executor, message, runs, completion, jobs, invoker, notices } = await world({
      retry: { ...baseJob.retry, maxAttempts: 2 },
    });
    await runs.createIfAbsent(newRun(baseJob, DUE, 2, DUE, 7));

    const result = await executeRun(executor('e'), message(2));
    expect(result.kind === 'called' && result.outcome.nextAttemptAt).toBeUndefined();
    const last = (await runs.get(message(2))) as never;

    expect(await completeRun(completion, last, DUE + 10)).toBe('job-failed');
    expect((await jobs.get('t', 'J1'))?.status).toBe('FAILED');
    // Queued for the notifier, not called from the completion handler.
    expect(invoker.requests.filter((r) => r.url === 'https://example.com/failed')).toHaveLength(0);
    expect(notices.sent).toEqual([
      expect.objectContaining({ tenantId: 't', jobId: 'J1', scheduledFor: DUE, attempt: 2, httpStatus: 500 }),
    ]);
  });

  it('does not retry a 404 unless the job lists it', async () => {
    const notFound: Answer = () => ({ kind: 'response', status: 404, bodyExcerpt: '', durationMs: 1 });
    const plain = await world({}, notFound);
    const listed = await world({ retry: { ...baseJob.retry, retryOn: [404] } }, notFound);

    const a = await executeRun(plain.executor('e'), plain.message(1));
    const b = await executeRun(listed.executor('e'), listed.message(1));

    expect(a.kind === 'called' && a.outcome.nextAttemptAt).toBeUndefined();
    expect(b.kind === 'called' && b.outcome.nextAttemptAt).toBe(DUE + 5_000);
  });

  it('honours Retry-After on 429', async () => {
    const limited: Answer = () => ({
      kind: 'response',
      status: 429,
      bodyExcerpt: '',
      durationMs: 1,
      retryAfterSeconds: 120,
    });
    const { executor, message } = await world({}, limited);
    const result = await executeRun(executor('e'), message(1));
    expect(result.kind === 'called' && result.outcome).toMatchObject({
      retryAfterSeconds: 120,
      nextAttemptAt: DUE + 120_000,
    });
  });

  it('parks a retry due beyond the SQS delay limit for the sweep instead of sending it', async () => {
    const { runs, dispatcher, completion, message } = await world();
    const failed = { ...message(1), status: 'FAILED' as const, nextAttemptAt: DUE + 3_600_000 };

    await completeRun(completion, failed, DUE);

    expect(dispatcher.sent).toEqual([]);
    const parked = runs.items.get(`t/J1/${DUE}/2`);
    expect(parked).toMatchObject({ status: 'QUEUED', availableAt: DUE + 3_600_000 });
    expect(parked?.sweepAt).toBe(DUE + 3_600_000 - 840_000);
  });

  it('never retries an at-most-once job', async () => {
    const { executor, message } = await world({ delivery: 'at-most-once' });
    const result = await executeRun(executor('e'), message(1));
    expect(result.kind === 'called' && result.outcome.nextAttemptAt).toBeUndefined();
  });
});

describe('leases and crash recovery', () => {
  it('records an at-most-once run found under an expired lease as lost, without calling', async () => {
    const { executor, message, runs, clock, invoker } = await world({ delivery: 'at-most-once' });
    await runs.claim(message(1), { owner: 'crashed', expiresAt: DUE + 10_000, now: DUE, takeOverExpired: false });
    clock.current = DUE + 20_000;

    expect((await executeRun(executor('e'), message(1))).kind).toBe('lost');
    expect(invoker.requests).toHaveLength(0);
    expect(await runs.get(message(1))).toMatchObject({ status: 'FAILED', errorType: 'lost' });
  });

  it("takes a crashed executor's run over once its lease has expired, counting the recovery", async () => {
    const { executor, message, runs, clock, invoker } = await world({}, () => ({
      kind: 'response',
      status: 200,
      bodyExcerpt: 'ok',
      durationMs: 3,
    }));
    await runs.claim(message(1), { owner: 'crashed', expiresAt: DUE + 10_000, now: DUE, takeOverExpired: true });
    // The message comes back when the lease ends (the crashed executor hid it until then).
    clock.current = DUE + 12_000;

    expect((await executeRun(executor('e'), message(1))).kind).toBe('called');
    expect(invoker.requests).toHaveLength(1);
    expect(await runs.get(message(1))).toMatchObject({ status: 'SUCCEEDED', recoveries: 1, leaseOwner: 'e' });
  });

  it('puts no claimed run in the sweep index, and a claim takes a parked retry out of it', async () => {
    const { runs, dispatcher, completion, message } = await world();
    await runs.claim(message(1), { owner: 'crashed', expiresAt: DUE + 10_000, now: DUE, takeOverExpired: true });
    expect(runs.items.get(`t/J1/${DUE}/1`)?.sweepAt).toBeUndefined();

    await runs.complete(message(1), 'crashed', {
      status: 'FAILED',
      completedAt: DUE + 1,
      nextAttemptAt: DUE + 3_600_000,
    });
    await completeRun(completion, { ...message(1), status: 'FAILED', nextAttemptAt: DUE + 3_600_000 }, DUE + 1);
    expect(runs.items.get(`t/J1/${DUE}/2`)?.sweepAt).toBeDefined();
    await runs.claim(message(2), {
      owner: 'e',
      expiresAt: DUE + 3_700_000,
      now: DUE + 3_600_000,
      takeOverExpired: true,
    });

    expect(runs.items.get(`t/J1/${DUE}/2`)?.sweepAt).toBeUndefined();
    expect(await sweepRuns({ runs, dispatcher, config: { shardCount: 4 } }, DUE + 1e9)).toEqual({
      found: 0,
      resent: 0,
    });
  });

  it('sends a parked retry once across racing scanners, and again later if nothing claims it', async () => {
    const { runs, dispatcher, completion, message } = await world();
    await runs.claim(message(1), { owner: 'e', expiresAt: DUE + 10_000, now: DUE, takeOverExpired: true });
    await completeRun(completion, { ...message(1), status: 'FAILED', nextAttemptAt: DUE + 3_600_000 }, DUE);
    const deps = { runs, dispatcher, config: { shardCount: 4 } };
    const reach = DUE + 3_600_000 - 840_000;

    expect(await sweepRuns(deps, reach - 1)).toEqual({ found: 0, resent: 0 });
    const results = await Promise.all([sweepRuns(deps, reach), sweepRuns(deps, reach)]);

    expect(results.reduce((n, r) => n + r.resent, 0)).toBe(1);
    expect(dispatcher.sent).toEqual([{ message: message(2), releaseAt: DUE + 3_600_000 }]);
    expect(runs.items.get(`t/J1/${DUE}/2`)?.sweepAt).toBe(DUE + 3_600_000 + DEFAULT_SWEEP_GRACE_MS);
  });

  it('sends a parked retry once it is within reach of an SQS delay', async () => {
    const { runs, dispatcher, completion, message } = await world();
    await runs.claim(message(1), { owner: 'e', expiresAt: DUE + 10_000, now: DUE, takeOverExpired: true });
    await completeRun(completion, { ...message(1), status: 'FAILED', nextAttemptAt: DUE + 3_600_000 }, DUE);

    await sweepRuns({ runs, dispatcher, config: { shardCount: 4 } }, DUE + 3_600_000 - 840_000);

    expect(dispatcher.sent).toEqual([{ message: message(2), releaseAt: DUE + 3_600_000 }]);
  });

  it('sends a run nobody claimed by its release plus the grace, whoever wrote it, and counts the sweep on it', async () => {
    const { runs, dispatcher, message } = await world();
    const deps = { runs, dispatcher, config: { shardCount: 4 } };

    expect(await sweepRuns(deps, DUE + DEFAULT_SWEEP_GRACE_MS - 1)).toEqual({ found: 0, resent: 0 });
    expect(await sweepRuns(deps, DUE + DEFAULT_SWEEP_GRACE_MS)).toEqual({ found: 1, resent: 1 });

    expect(dispatcher.sent).toEqual([{ message: message(1), releaseAt: DUE }]);
    expect(runs.items.get(`t/J1/${DUE}/1`)).toMatchObject({
      sweeps: 1,
      sweepAt: DUE + 2 * DEFAULT_SWEEP_GRACE_MS,
    });
  });

  it('sweeps a run that stays unclaimed again after the grace, then twice as long each time, up to a cap', async () => {
    const run = { ...newRun(baseJob, DUE, 1, DUE, 7), sweeps: 0 };
    const waits = [0, 1, 2, 3, 4, 5, 6].map(
      (sweeps) => nextSweepAt({ ...run, sweeps }, DUE + 1_000, 20_000) - (DUE + 1_000),
    );

    expect(waits).toEqual([
      20_000,
      40_000,
      80_000,
      160_000,
      MAX_RESWEEP_INTERVAL_MS,
      MAX_RESWEEP_INTERVAL_MS,
      MAX_RESWEEP_INTERVAL_MS,
    ]);
    // A parked retry swept before its release waits from its release.
    expect(nextSweepAt({ ...run, availableAt: DUE + 600_000 }, DUE, 20_000)).toBe(DUE + 620_000);
  });

  it('counts the grace from the creation of a run made after its occurrence (a catch-up)', async () => {
    const runs = new InMemoryRunRepository();
    const late = newRun(baseJob, DUE, 1, DUE + 3_600_000, 7);

    await runs.createIfAbsent(late);

    expect(runs.items.get(`t/J1/${DUE}/1`)?.sweepAt).toBe(DUE + 3_600_000 + DEFAULT_SWEEP_GRACE_MS);
  });

  it('leaves a run whose sweep send failed in the window for the next pass', async () => {
    const { runs, message } = await world();
    const failing = { dispatch: async () => Promise.reject(new Error('SQS is down')), unsent: vi.fn() };
    const sweepAt = DUE + DEFAULT_SWEEP_GRACE_MS;

    expect(await sweepRuns({ runs, dispatcher: failing, config: { shardCount: 4 } }, sweepAt)).toEqual({
      found: 1,
      resent: 0,
    });

    expect(failing.unsent).toHaveBeenCalledWith([{ message: message(1), releaseAt: DUE }], expect.any(Error));
    expect(runs.items.get(`t/J1/${DUE}/1`)?.sweepAt).toBe(sweepAt);
    const dispatcher = new RecordingDispatcher();
    expect(await sweepRuns({ runs, dispatcher, config: { shardCount: 4 } }, sweepAt + 1)).toEqual({
      found: 1,
      resent: 1,
    });
  });
});

describe('dead letters', () => {
  it('ends a dead-lettered run visibly and lets the tenant re-drive it as a new attempt', async () => {
    const { runs, jobs, dispatcher, message } = await world();

    expect(await recordDeadLetter(runs, message(1), 5, DUE + 1)).toBe(true);
    expect(await runs.get(message(1))).toMatchObject({
      status: 'DEAD_LETTERED',
      error: 'dispatch message moved to the dead-letter queue after repeated failed deliveries (receive count 5)',
    });
    expect((await runs.listDeadLetters('t', { limit: 10 })).items).toHaveLength(1);
    expect((await runs.listDeadLetters('other', { limit: 10 })).items).toHaveLength(0);

    const next = await redriveRun(
      { jobs, runs, dispatcher, config: { retentionDays: 7 } },
      't',
      message(1).runId,
      DUE + 2,
    );
    expect(next).toMatchObject({ attempt: 2, status: 'QUEUED' });
    expect(dispatcher.sent).toEqual([{ message: message(2), releaseAt: DUE + 2 }]);
    await expect(
      redriveRun({ jobs, runs, dispatcher, config: { retentionDays: 7 } }, 't', message(1).runId, DUE + 3),
    ).rejects.toBeInstanceOf(ConflictError);
  });

  it('refuses (409) to re-drive the last attempt an occurrence can have, and makes no run', async () => {
    const { runs, jobs, dispatcher } = await world();
    const last = { tenantId: 't', jobId: 'J1', scheduledFor: DUE, attempt: 999 };
    await runs.createIfAbsent(newRun({ tenantId: 't', jobId: 'J1' }, DUE, 999, DUE, 7));
    await recordDeadLetter(runs, { ...last, runId: `J1_${DUE}_999` }, 5, DUE + 1);

    await expect(
      redriveRun({ jobs, runs, dispatcher, config: { retentionDays: 7 } }, 't', `J1_${DUE}_999`, DUE + 2),
    ).rejects.toBeInstanceOf(ConflictError);
    expect(dispatcher.sent).toEqual([]);
    expect(() => newRun({ tenantId: 't', jobId: 'J1' }, DUE, 1_000, DUE, 7)).toThrow(RangeError);
  });

  it("refuses (409) to re-drive a workflow task's dead letter, naming the workflow run's retry, and makes no run", async () => {
    const { runs, jobs, dispatcher } = await world();
    const task = {
      ...newRun({ tenantId: 't', jobId: 'TASK1', workflowRunId: 'wfX_1', taskKey: 'load' }, DUE, 1, DUE, 7),
    };
    expect((await runs.createIfAbsent(task)).created).toBe(true);
    await recordDeadLetter(
      runs,
      { tenantId: 't', jobId: 'TASK1', scheduledFor: DUE, attempt: 1, runId: task.runId },
      5,
      DUE + 1,
    );
    const refused = redriveRun({ jobs, runs, dispatcher, config: { retentionDays: 7 } }, 't', task.runId, DUE + 2);
    await expect(refused).rejects.toThrow(/POST \/v1\/workflow-runs\/wfX_1\/retry/);
    expect(dispatcher.sent).toEqual([]);
    expect(await runs.get({ tenantId: 't', jobId: 'TASK1', scheduledFor: DUE, attempt: 2 })).toBeUndefined();
  });

  it('leaves a run that already finished alone', async () => {
    const { runs, executor, message } = await world({}, () => ({
      kind: 'response',
      status: 200,
      bodyExcerpt: '',
      durationMs: 1,
    }));
    await executeRun(executor('e'), message(1));
    expect(await recordDeadLetter(runs, message(1), 5, DUE + 1)).toBe(false);
    expect((await runs.get(message(1)))?.status).toBe('SUCCEEDED');
  });
});

describe('paused jobs', () => {
  it('skips a scheduled occurrence of a paused job without calling, but runs a trigger', async () => {
    const { executor, message, runs, jobs, invoker } = await world({}, () => ({
      kind: 'response',
      status: 200,
      bodyExcerpt: '',
      durationMs: 1,
    }));
    Object.assign(jobs.items.get('t/J1') as Job, { status: 'PAUSED' });

    expect(await executeRun(executor('e'), message(1))).toEqual({ kind: 'skipped', reason: 'job was paused' });
    expect(await runs.get(message(1))).toMatchObject({ status: 'SKIPPED', errorType: 'paused' });

    const triggered = { ...newRun(baseJob, DUE + 7, 1, DUE, 7), triggered: true };
    await runs.createIfAbsent(triggered);
    expect(
      (await executeRun(executor('e'), { ...message(1), scheduledFor: DUE + 7, runId: triggered.runId })).kind,
    ).toBe('called');
    expect(invoker.requests).toHaveLength(1);
  });
});

describe('lease safety', () => {
  it('does not start a call the remaining lease cannot cover, and leaves the run to be recovered', async () => {
    const { executor, message, runs, invoker, clock } = await world({}, () => ({
      kind: 'response',
      status: 200,
      bodyExcerpt: '',
      durationMs: 1,
    }));
    // A host so stalled that the wait for the due time overshoots the lease margin.
    const stalled = {
      now: () => clock.now(),
      sleepUntil: async (at: number) => {
        clock.current = Math.max(clock.current, at) + 40_000;
      },
    };
    const deps = { ...executor('e'), clock: stalled };

    const result = await executeRun(deps, message(1));

    expect(result.kind).toBe('leased-elsewhere');
    expect(invoker.requests).toHaveLength(0);
    expect(await runs.get(message(1))).toMatchObject({ status: 'RUNNING', leaseOwner: 'e' });
  });
});
