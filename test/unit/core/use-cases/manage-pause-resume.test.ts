import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '#core/errors';
import { newRun } from '#core/use-cases/new-run';
import { pauseJob, resumeJob } from '#core/use-cases/pause-resume-job';
import { scanDueJobs } from '#core/use-cases/scan-due-jobs';
import { every, NOW, setup, TENANT } from './manage-fixtures.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('pausing a job', () => {
  it('takes the job out of the due-index and un-materializes the runs ahead, remembering the earliest', async () => {
    const { deps, create, runsOf } = setup();
    const job = await create(every(30, NOW)); // runs at NOW, +30 s, +60 s, +90 s; nextFireAt +120 s
    const pausedAt = NOW + 10_000;

    const paused = await pauseJob(deps, TENANT, job.jobId, pausedAt);

    expect(paused).toMatchObject({ status: 'PAUSED', pausedAt, pausedNextFireAt: NOW + 30_000, occurrenceCount: 1 });
    expect(paused.nextFireAt).toBeUndefined();
    expect(paused.dueShard).toBeUndefined();
    expect(runsOf(job.jobId).map((run) => run.scheduledFor)).toEqual([NOW]);
    expect(await scanDueJobs(deps, pausedAt + HOUR)).toMatchObject({ jobsFound: 0, runsCreated: 0 });
  });

  it('keeps a run an executor has already claimed', async () => {
    const { deps, create, runs, runsOf } = setup();
    const job = await create(every(30, NOW));
    const claimedRun = runsOf(job.jobId)[1];
    if (!claimedRun) throw new Error('expected a second run');
    await runs.claim(claimedRun, { owner: 'x', expiresAt: NOW + HOUR, now: NOW, takeOverExpired: true });

    const paused = await pauseJob(deps, TENANT, job.jobId, NOW + 10_000);

    expect(runsOf(job.jobId).map((run) => run.status)).toEqual(['QUEUED', 'RUNNING']);
    expect(paused.pausedNextFireAt).toBe(NOW + 60_000);
  });

  it('refuses to pause a job that is not ACTIVE', async () => {
    const { deps, create } = setup();
    const job = await create(every(3600, NOW + HOUR));
    await pauseJob(deps, TENANT, job.jobId, NOW);

    await expect(pauseJob(deps, TENANT, job.jobId, NOW + 1)).rejects.toThrow(ConflictError);
  });

  it("answers NotFound for another tenant's job", async () => {
    const { deps, create } = setup();
    const theirs = await create(every(3600, NOW + HOUR), NOW, 'tenant-b');

    await expect(pauseJob(deps, TENANT, theirs.jobId, NOW)).rejects.toThrow(NotFoundError);
    expect((await deps.jobs.get('tenant-b', theirs.jobId))?.status).toBe('ACTIVE');
  });
});

describe('resuming a job', () => {
  async function pausedForAnHour(misfire: 'skip' | 'fire_once' | 'fire_all') {
    const context = setup();
    const job = await context.create(every(600, NOW, { misfire })); // every 10 min: NOW materialized
    await pauseJob(context.deps, TENANT, job.jobId, NOW + 1_000);
    const resumedAt = NOW + HOUR + 5 * MINUTE; // slots +10 … +60 min were missed
    const resumed = await resumeJob(context.deps, TENANT, job.jobId, resumedAt);
    return { ...context, job, resumed, resumedAt };
  }

  it('with skip, fires none of the occurrences missed while paused', async () => {
    const { job, resumed, runsOf } = await pausedForAnHour('skip');

    expect(runsOf(job.jobId).map((run) => run.scheduledFor)).toEqual([NOW]);
    expect(resumed).toMatchObject({ status: 'ACTIVE', nextFireAt: NOW + HOUR + 10 * MINUTE });
    expect(resumed.pausedAt).toBeUndefined();
    expect(resumed.pausedNextFireAt).toBeUndefined();
  });

  it('with fire_once, fires the latest missed occurrence once', async () => {
    const { job, runsOf } = await pausedForAnHour('fire_once');

    expect(runsOf(job.jobId).map((run) => run.scheduledFor)).toEqual([NOW, NOW + HOUR]);
  });

  it('with fire_all, fires every missed occurrence', async () => {
    const { job, runsOf } = await pausedForAnHour('fire_all');

    expect(runsOf(job.jobId)).toHaveLength(7);
  });

  it('applies the policy to a pause shorter than the scanner grace too: skip replays nothing of it', async () => {
    const { deps, create, runsOf } = setup();
    const job = await create(every(2, NOW, { misfire: 'skip' }));
    await pauseJob(deps, TENANT, job.jobId, NOW + 1_000);

    const resumed = await resumeJob(deps, TENANT, job.jobId, NOW + 11_000);

    const times = runsOf(job.jobId).map((run) => run.scheduledFor - NOW);
    expect(times.filter((t) => t <= 11_000)).toEqual([0]); // +2 … +10 s fell in the pause
    expect(times[1]).toBe(12_000);
    expect(resumed.nextFireAt).toBe(NOW + 11_000 + 90_000 + 1_000);
  });

  it('with fire_once, fires one run for a short pause, at its latest missed slot', async () => {
    const { deps, create, runsOf, dispatcher } = setup();
    const job = await create(every(2, NOW, { misfire: 'fire_once' }));
    await pauseJob(deps, TENANT, job.jobId, NOW + 1_000);
    const sent = dispatcher.sent.length;

    await resumeJob(deps, TENANT, job.jobId, NOW + 11_000);

    const times = runsOf(job.jobId).map((run) => run.scheduledFor - NOW);
    expect(times.filter((t) => t <= 11_000)).toEqual([0, 10_000]);
    expect(dispatcher.sent[sent]).toEqual({
      message: expect.objectContaining({ scheduledFor: NOW + 10_000 }),
      releaseAt: expect.any(Number),
    });
  });

  it('re-materializes the occurrences a short pause discarded, under the same run ids', async () => {
    const { deps, create, runsOf, dispatcher } = setup();
    const job = await create(every(30, NOW));
    const before = runsOf(job.jobId).map((run) => run.runId);
    await pauseJob(deps, TENANT, job.jobId, NOW + 10_000);
    const sent = dispatcher.sent.length;

    const resumed = await resumeJob(deps, TENANT, job.jobId, NOW + 20_000);

    const after = runsOf(job.jobId).map((run) => run.runId);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(dispatcher.sent.slice(sent).map((s) => s.message.scheduledFor)).toEqual([
      NOW + 30_000,
      NOW + 60_000,
      NOW + 90_000,
    ]);
    expect(resumed.nextFireAt).toBe(NOW + 120_000);
  });

  it('refuses to resume a job that is not PAUSED', async () => {
    const { deps, create } = setup();
    const job = await create(every(3600, NOW + HOUR));

    await expect(resumeJob(deps, TENANT, job.jobId, NOW)).rejects.toThrow(ConflictError);
  });

  it('makes a scan that read the job before the pause unable to advance it', async () => {
    const { deps, create } = setup();
    const job = await create(every(3600, NOW + HOUR));
    const [dueBeforePause] = await deps.jobs.findDue(job.dueShard as string, NOW + 2 * HOUR, 10);
    await pauseJob(deps, TENANT, job.jobId, NOW);

    const advanced = await deps.jobs.advance(dueBeforePause as never, {
      nextFireAt: NOW + 2 * HOUR,
      materialized: 1,
      now: NOW,
    });

    expect(advanced).toBe(false);
    expect((await deps.jobs.get(TENANT, job.jobId))?.nextFireAt).toBeUndefined();
  });
});

describe('a one-time job paused while a scan that had made its run was still to advance it', () => {
  it('fires again after resume when its run was skipped as paused, instead of staying ACTIVE with nothing to fire', async () => {
    const { deps, create, runs, runsOf, jobs, dispatcher } = setup();
    const at = NOW + HOUR;
    const job = await create({ schedule: { type: 'once', at: new Date(at).toISOString() } });
    // A scan at the due time made the run, then lost its advance to the pause (or died before it).
    const { newRun } = await import('#core/use-cases/new-run');
    await runs.createIfAbsent(newRun(job, at, 1, at, 7));
    await pauseJob(deps, TENANT, job.jobId, at + 1_000);
    const [run] = runsOf(job.jobId);
    if (!run) throw new Error('expected the run');
    await runs.claim(run, { owner: 'x', expiresAt: at + HOUR, now: at + 2_000, takeOverExpired: true });
    await runs.complete(run, 'x', { status: 'SKIPPED', errorType: 'paused', completedAt: at + 2_000 });

    const resumed = await resumeJob(deps, TENANT, job.jobId, at + 3_000);

    expect(resumed.status).toBe('ACTIVE');
    expect(runsOf(job.jobId).map((r) => [r.attempt, r.status])).toEqual([
      [1, 'SKIPPED'],
      [2, 'QUEUED'],
    ]);
    expect(dispatcher.sent.at(-1)?.message).toMatchObject({ jobId: job.jobId, attempt: 2 });
    expect((await jobs.get(TENANT, job.jobId))?.nextFireAt).toBeUndefined();
  });

  it('ends COMPLETED after resume when its run succeeded while it was paused', async () => {
    const { deps, create, runs, runsOf, jobs } = setup();
    const at = NOW + HOUR;
    const job = await create({ schedule: { type: 'once', at: new Date(at).toISOString() } });
    const { newRun } = await import('#core/use-cases/new-run');
    await runs.createIfAbsent(newRun(job, at, 1, at, 7));
    await pauseJob(deps, TENANT, job.jobId, at + 1_000);
    const [run] = runsOf(job.jobId);
    if (!run) throw new Error('expected the run');
    await runs.claim(run, { owner: 'x', expiresAt: at + HOUR, now: at + 2_000, takeOverExpired: true });
    await runs.complete(run, 'x', { status: 'SUCCEEDED', httpStatus: 200, completedAt: at + 2_000 });

    await resumeJob(deps, TENANT, job.jobId, at + 3_000);

    expect((await jobs.get(TENANT, job.jobId))?.status).toBe('COMPLETED');
  });
});

describe('resume catch-up that ends the schedule, with triggers made during the pause', () => {
  it('leaves the job ACTIVE until the final catch-up run has run, however many triggers are newer', async () => {
    const { deps, create, jobs, runsOf } = setup();
    const { triggerJob } = await import('#core/use-cases/trigger-job');
    const job = await create(
      every(60, NOW, {
        misfire: 'fire_all',
        schedule: {
          type: 'interval',
          everySeconds: 60,
          startAt: new Date(NOW).toISOString(),
          endAt: new Date(NOW + 5 * MINUTE).toISOString(),
        },
      }),
    );
    await pauseJob(deps, TENANT, job.jobId, NOW + 10_000);
    // A paused job is not triggered (409), but a trigger that read the job just before the pause
    // creates its run after it: each such run is newer than every occurrence the pause missed.
    const stored = await jobs.get(TENANT, job.jobId);
    if (!stored) throw new Error('job missing');
    for (let i = 0; i < 12; i++) {
      const at = NOW + 5 * MINUTE + 1_000 + i * 1_000;
      await deps.runs.createIfAbsent({ ...newRun(stored, at, 1, at, 7), triggered: true });
    }
    await expect(triggerJob(deps, TENANT, job.jobId, NOW + 6 * MINUTE)).rejects.toThrow(/PAUSED/);

    await resumeJob(deps, TENANT, job.jobId, NOW + 10 * MINUTE);

    const final = runsOf(job.jobId).find((run) => run.finalOccurrence);
    expect(final).toMatchObject({ scheduledFor: NOW + 5 * MINUTE, status: 'QUEUED' });
    expect((await jobs.get(TENANT, job.jobId))?.status).toBe('ACTIVE');
  });
});
