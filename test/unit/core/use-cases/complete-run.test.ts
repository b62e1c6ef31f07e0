/**
 * Completion without the job writes that can only fail: the run carries its schedule type, and a
 * recurring schedule's final occurrence is marked.
 */
import { describe, expect, it, vi } from 'vitest';
import type { Job } from '#core/model';
import { type CompletedRun, completeRun } from '#core/use-cases/complete-run';
import { newRun } from '#core/use-cases/new-run';
import { FakeClock, RecordingDispatcher, RecordingNotices } from '../../../support/fakes/fakes.ts';
import { InMemoryJobRepository } from '../../../support/fakes/in-memory-jobs.ts';
import { InMemoryRunRepository } from '../../../support/fakes/in-memory-runs.ts';
import { jobFixture } from '../../../support/job-fixture.ts';

const DUE = Date.parse('2026-06-01T12:00:00Z');

const oneTime: Job = jobFixture(DUE);

async function setup(job: Job = oneTime) {
  const jobs = new InMemoryJobRepository();
  await jobs.create(job);
  const runs = new InMemoryRunRepository();
  const exhausted = vi.spyOn(jobs, 'completeExhausted');
  const _clock = new FakeClock(DUE);
  const deps = {
    jobs,
    runs,
    dispatcher: new RecordingDispatcher(),
    notices: new RecordingNotices(),
    config: { retentionDays: 7 },
  };
  return { jobs, runs, exhausted, deps };
}

const finished = (job: Job, over: Partial<CompletedRun> = {}): CompletedRun => ({
  ...newRun(job, DUE, 1, DUE - 60_000, 7),
  status: 'SUCCEEDED',
  completedAt: DUE + 10,
  ...over,
});

describe('the schedule type on a run', () => {
  it("is the job's, and a retry keeps it", async () => {
    const { runs, deps } = await setup();
    expect(newRun(oneTime, DUE, 1, DUE, 7).scheduleType).toBe('once');
    const recurring = { ...oneTime, schedule: { type: 'interval' as const, everySeconds: 5, startAt: DUE } };
    expect(newRun(recurring, DUE, 1, DUE, 7).scheduleType).toBe('interval');

    await completeRun(deps, finished(oneTime, { status: 'FAILED', nextAttemptAt: DUE + 1_000 }), DUE);
    expect((await runs.get({ tenantId: 't', jobId: 'J1', scheduledFor: DUE, attempt: 2 }))?.scheduleType).toBe('once');
  });
});

describe('completing a one-time job', () => {
  it('finishes it without trying to complete an exhausted recurring schedule', async () => {
    const { jobs, exhausted, deps } = await setup();

    expect(await completeRun(deps, finished(oneTime), DUE + 20)).toBe('job-completed');
    expect(exhausted).not.toHaveBeenCalled();
    expect((await jobs.get('t', 'J1'))?.status).toBe('COMPLETED');
  });

  it('fails it on a failed run, still without that write', async () => {
    const { jobs, exhausted, deps } = await setup();
    expect(await completeRun(deps, finished(oneTime, { status: 'FAILED' }), DUE + 20)).toBe('job-failed');
    expect(exhausted).not.toHaveBeenCalled();
    expect((await jobs.get('t', 'J1'))?.status).toBe('FAILED');
  });

  it('cancels it when its tenant cancelled its only occurrence; a run of a cancelled or paused job changes nothing', async () => {
    const { jobs, deps } = await setup();
    const cancelled = finished(oneTime, { status: 'CANCELLED', errorType: 'cancelled', cancelRequestedAt: DUE + 5 });
    expect(await completeRun(deps, cancelled, DUE + 20)).toBe('job-cancelled');
    expect((await jobs.get('t', 'J1'))?.status).toBe('CANCELLED');
    // Redelivered: the job is no longer ACTIVE, nothing more happens.
    expect(await completeRun(deps, cancelled, DUE + 30)).toBe('unchanged');

    const paused = await setup({ ...oneTime, status: 'PAUSED' });
    expect(await completeRun(paused.deps, cancelled, DUE + 20)).toBe('unchanged');
    expect((await paused.jobs.get('t', 'J1'))?.status).toBe('PAUSED');
    const every: Job = { ...oneTime, schedule: { type: 'interval', everySeconds: 60, startAt: DUE } };
    const recurring = await setup(every);
    const recurringRun = finished(every, { status: 'CANCELLED', errorType: 'cancelled' });
    expect(await completeRun(recurring.deps, recurringRun, DUE + 20)).toBe('unchanged');
    expect((await recurring.jobs.get('t', 'J1'))?.status).toBe('ACTIVE');
  });

  it('leaves it ACTIVE when the executor ended the run because the job was gone, and a retried create wrote it since', async () => {
    // The chaos run's case: the API died after putting the run, the sweep sent it, the executor
    // found no job and ended it CANCELLED; the create, retried with its Idempotency-Key, then wrote
    // the job (ACTIVE, at that occurrence) and fired it again before this record came.
    const { jobs, deps } = await setup();
    const jobGone = finished(oneTime, { status: 'CANCELLED', errorType: 'cancelled', error: 'job no longer exists' });
    expect(await completeRun(deps, jobGone, DUE + 20)).toBe('unchanged');
    expect((await jobs.get('t', 'J1'))?.status).toBe('ACTIVE');
  });

  it('fails it when its only occurrence was skipped for overlap: it will never run', async () => {
    const { jobs, deps } = await setup();
    const skipped = finished(oneTime, { status: 'SKIPPED', errorType: 'overlap' });

    expect(await completeRun(deps, skipped, DUE + 20)).toBe('job-failed');
    expect((await jobs.get('t', 'J1'))?.status).toBe('FAILED');
  });

  it('leaves an attempt skipped as paused to resume while the job is PAUSED', async () => {
    const { jobs, runs, deps } = await setup({ ...oneTime, status: 'PAUSED' });
    const skipped = finished(oneTime, { status: 'SKIPPED', errorType: 'paused' });

    expect(await completeRun(deps, skipped, DUE + 20)).toBe('unchanged');
    expect((await jobs.get('t', 'J1'))?.status).toBe('PAUSED');
    expect(runs.all()).toEqual([]);
  });

  it('fires an attempt skipped as paused again when the job was resumed meanwhile', async () => {
    const { jobs, runs, deps } = await setup();
    const skipped = finished(oneTime, { status: 'SKIPPED', errorType: 'paused', attempt: 2 });

    expect(await completeRun(deps, skipped, DUE + 20)).toBe('retry-scheduled');
    expect(await completeRun(deps, skipped, DUE + 30)).toBe('retry-scheduled'); // a redelivered record
    expect(runs.all().map((run) => [run.attempt, run.status])).toEqual([[3, 'QUEUED']]);
    expect(deps.dispatcher.sent.map((sent) => [sent.message.attempt, sent.releaseAt])).toEqual([
      [3, DUE + 20],
      [3, DUE + 30],
    ]);
    expect((await jobs.get('t', 'J1'))?.status).toBe('ACTIVE');
  });

  it('is not finished by the run of an occurrence it was rescheduled away from, nor by a trigger', async () => {
    const { jobs, deps } = await setup({ ...oneTime, schedule: { type: 'once', at: DUE + 60_000 } });

    expect(await completeRun(deps, finished(oneTime), DUE + 20)).toBe('unchanged');
    expect(await completeRun(deps, finished(oneTime, { status: 'FAILED' }), DUE + 20)).toBe('occurrence-failed');
    const trigger = { ...newRun(oneTime, DUE + 60_000, 1, DUE, 7), triggered: true };
    expect(await completeRun(deps, { ...trigger, status: 'SUCCEEDED', completedAt: DUE + 30 }, DUE + 30)).toBe(
      'unchanged',
    );
    expect((await jobs.get('t', 'J1'))?.status).toBe('ACTIVE');
  });

  it('still works for a run made before runs carried their schedule type', async () => {
    const { jobs, exhausted, deps } = await setup();
    const { scheduleType: _, ...old } = finished(oneTime);

    expect(await completeRun(deps, old, DUE + 20)).toBe('job-completed');
    expect(exhausted).toHaveBeenCalledOnce();
    expect((await jobs.get('t', 'J1'))?.status).toBe('COMPLETED');
  });
});

describe('retrying a triggered run', () => {
  it('keeps the trigger mark, so the retry runs while the job is paused, as the trigger did', async () => {
    const recurring: Job = { ...oneTime, schedule: { type: 'interval', everySeconds: 60, startAt: DUE } };
    const { runs, deps } = await setup({ ...recurring, status: 'PAUSED' });
    const trigger = { ...newRun(recurring, DUE + 7, 1, DUE, 7), triggered: true };

    await completeRun(deps, { ...trigger, status: 'FAILED', completedAt: DUE + 10, nextAttemptAt: DUE + 1_000 }, DUE);

    expect((await runs.get({ tenantId: 't', jobId: 'J1', scheduledFor: DUE + 7, attempt: 2 }))?.triggered).toBe(true);
  });
});

describe('completing a recurring job', () => {
  const recurring: Job = { ...oneTime, schedule: { type: 'interval', everySeconds: 5, startAt: DUE, maxRuns: 1 } };
  const finalRun = (over: Partial<CompletedRun> = {}): CompletedRun => ({
    ...newRun(recurring, DUE, 1, DUE - 60_000, 7, true),
    status: 'SUCCEEDED',
    completedAt: DUE + 10,
    ...over,
  });

  it('completes it once its schedule is exhausted, from the run of its final occurrence', async () => {
    const { jobs, exhausted, deps } = await setup(recurring);

    expect(await completeRun(deps, finalRun(), DUE + 20)).toBe('job-completed');
    expect(exhausted).toHaveBeenCalledOnce();
    expect((await jobs.get('t', 'J1'))?.status).toBe('COMPLETED');
  });

  it('writes nothing to the job for any other occurrence, whatever its outcome', async () => {
    const { jobs, exhausted, deps } = await setup({ ...recurring, nextFireAt: DUE + 5_000, dueShard: 'due#00' });
    const finish = vi.spyOn(jobs, 'finish');

    expect(await completeRun(deps, finished(recurring), DUE + 20)).toBe('unchanged');
    expect(await completeRun(deps, finished(recurring, { status: 'FAILED' }), DUE + 20)).toBe('occurrence-failed');
    expect(await completeRun(deps, finished(recurring, { status: 'SKIPPED' }), DUE + 20)).toBe('unchanged');
    expect(exhausted).not.toHaveBeenCalled();
    expect(finish).not.toHaveBeenCalled();
    expect((await jobs.get('t', 'J1'))?.status).toBe('ACTIVE');
  });

  it("keeps the final mark on a retry, so the final occurrence's last attempt completes the job", async () => {
    const { jobs, runs, deps } = await setup(recurring);
    await completeRun(deps, finalRun({ status: 'FAILED', nextAttemptAt: DUE + 1_000 }), DUE);
    const retry = await runs.get({ tenantId: 't', jobId: 'J1', scheduledFor: DUE, attempt: 2 });
    expect(retry?.finalOccurrence).toBe(true);

    const lastAttempt = { ...(retry as CompletedRun), status: 'FAILED' as const, completedAt: DUE + 2_000 };
    expect(await completeRun(deps, lastAttempt, DUE + 2_000)).toBe('job-completed');
    expect((await jobs.get('t', 'J1'))?.status).toBe('COMPLETED');
  });
});
