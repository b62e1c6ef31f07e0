/**
 * Resuming a job that has nothing left to schedule: it ends consistently with its runs (a one-time
 * job's run that ran, was skipped or is in flight during the pause; a recurring job whose catch-up
 * includes its final occurrence).
 */
import { describe, expect, it } from 'vitest';
import type { Run } from '#core/model';
import type { RunOutcome } from '#core/ports';
import { completeRun } from '#core/use-cases/complete-run';
import { pauseJob, resumeJob } from '#core/use-cases/pause-resume-job';
import { FakeClock, RecordingNotices } from '../../../support/fakes/fakes.ts';
import { every, HORIZON_MS, iso, NOW, setup, TENANT } from './manage-fixtures.ts';

const LEASE = { owner: 'executor', expiresAt: NOW + 600_000, takeOverExpired: true };

/** A one-time job due now, its run claimed by an executor, then paused. */
async function pausedInFlight() {
  const context = setup();
  const job = await context.create({ schedule: { type: 'once', at: iso(NOW) } });
  const [run] = context.runsOf(job.jobId);
  if (!run) throw new Error('expected the run of the occurrence');
  await context.runs.claim(run, { ...LEASE, now: NOW });
  const paused = await pauseJob(context.deps, TENANT, job.jobId, NOW + 100);
  const end = (outcome: Partial<RunOutcome> & Pick<RunOutcome, 'status'>) =>
    context.runs.complete(run, LEASE.owner, { completedAt: NOW + 200, ...outcome });
  return { ...context, job, run, paused, end };
}

describe('resuming a one-time job with nothing left to schedule', () => {
  it('finishes it from the run that ended while it was paused', async () => {
    const { deps, job, paused, end } = await pausedInFlight();
    expect(paused.pausedNextFireAt).toBeUndefined();
    await end({ status: 'FAILED', errorType: 'http_4xx' });

    const resumed = await resumeJob(deps, TENANT, job.jobId, NOW + 1_000);

    expect(resumed).toMatchObject({ status: 'FAILED' });
    expect(resumed.nextFireAt).toBeUndefined();
  });

  it('leaves a run still in flight to its own completion, which then finishes the job', async () => {
    const { deps, runs, job, run, end } = await pausedInFlight();

    const resumed = await resumeJob(deps, TENANT, job.jobId, NOW + 1_000);
    expect(resumed.status).toBe('ACTIVE');

    await end({ status: 'SUCCEEDED' });
    const ended = await runs.get(run);
    const _clock = new FakeClock(NOW);
    const completion = {
      ...deps,
      notices: new RecordingNotices(),
    };
    expect(await completeRun(completion, { ...(ended as Run), status: 'SUCCEEDED' as const }, NOW + 2_000)).toBe(
      'job-completed',
    );
    expect((await deps.jobs.get(TENANT, job.jobId))?.status).toBe('COMPLETED');
  });

  it('fires an attempt skipped as paused again, as the next attempt, now', async () => {
    const { deps, dispatcher, runsOf, job, end } = await pausedInFlight();
    await end({ status: 'SKIPPED', errorType: 'paused' });
    dispatcher.sent.length = 0;

    const resumed = await resumeJob(deps, TENANT, job.jobId, NOW + 1_000);

    expect(resumed.status).toBe('ACTIVE');
    expect(runsOf(job.jobId).map((run) => [run.attempt, run.status])).toEqual([
      [1, 'SKIPPED'],
      [2, 'QUEUED'],
    ]);
    expect(dispatcher.sent.map((sent) => [sent.message.attempt, sent.releaseAt])).toEqual([[2, NOW + 1_000]]);
  });

  it('puts a job whose run is gone back in the due-index at its time, and fires it', async () => {
    const { deps, runs, dispatcher, job, run } = await pausedInFlight();
    runs.items.clear(); // expired with its retention while paused
    dispatcher.sent.length = 0;

    const resumed = await resumeJob(deps, TENANT, job.jobId, NOW + 1_000);

    expect(resumed.status).toBe('ACTIVE');
    expect(dispatcher.sent.map((sent) => sent.message.runId)).toEqual([run.runId]);
  });
});

describe('resuming a recurring job whose schedule ended during the pause', () => {
  it('marks the catch-up run of the final occurrence and completes the job only when it has run', async () => {
    const context = setup();
    const { deps, runs, dispatcher, runsOf } = context;
    // Every 10 s from an hour from now, until 25 s later: slots +0, +10, +20 s.
    const startAt = NOW + 3_600_000;
    const job = await context.create(every(10, startAt, { misfire: 'fire_all' }));
    await deps.jobs.replace(
      { ...job, schedule: { type: 'interval', everySeconds: 10, startAt, endAt: startAt + 25_000 }, version: 2 },
      job.version,
    );
    await pauseJob(deps, TENANT, job.jobId, NOW);

    const resumedAt = startAt + HORIZON_MS;
    const resumed = await resumeJob(deps, TENANT, job.jobId, resumedAt);

    expect(resumed.status).toBe('ACTIVE');
    expect(runsOf(job.jobId).map((run) => [run.scheduledFor - startAt, run.finalOccurrence ?? false])).toEqual([
      [0, false],
      [10_000, false],
      [20_000, true],
    ]);
    expect(dispatcher.sent.map((sent) => sent.releaseAt)).toEqual([resumedAt, resumedAt, resumedAt]);

    const final = runsOf(job.jobId)[2];
    if (!final) throw new Error('expected the final run');
    await runs.claim(final, { ...LEASE, expiresAt: resumedAt + 600_000, now: resumedAt });
    await runs.complete(final, LEASE.owner, { status: 'SUCCEEDED', completedAt: resumedAt + 10 });
    const _clock = new FakeClock(resumedAt);
    const completion = {
      ...deps,
      notices: new RecordingNotices(),
    };
    const ended = await runs.get(final);
    expect(await completeRun(completion, { ...(ended as Run), status: 'SUCCEEDED' as const }, resumedAt + 20)).toBe(
      'job-completed',
    );
  });

  it('completes at once a job whose final run had already ended', async () => {
    const context = setup();
    const { deps, runs, runsOf } = context;
    const job = await context.create(every(10, NOW, { misfire: 'skip' }));
    await deps.jobs.replace(
      { ...job, schedule: { type: 'interval', everySeconds: 10, startAt: NOW, endAt: NOW + 5_000 }, version: 2 },
      job.version,
    );
    // Materialized as the final occurrence by a scan, then run.
    const [first] = runsOf(job.jobId);
    if (!first) throw new Error('expected the first run');
    runs.items.clear();
    await runs.createIfAbsent({ ...first, finalOccurrence: true, status: 'SUCCEEDED' });
    await deps.jobs.advance({ ...job, version: 2 }, { materialized: 0, now: NOW });
    await pauseJob(deps, TENANT, job.jobId, NOW + 1_000);

    const resumed = await resumeJob(deps, TENANT, job.jobId, NOW + 2_000);

    expect(resumed.status).toBe('COMPLETED');
  });
});
