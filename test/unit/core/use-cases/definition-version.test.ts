/**
 * The definition version (the API's `version`, ETag and If-Match) moves with the tenant's changes
 * only, while every write stays conditioned on the internal version: a PATCH that loses its write
 * to a scanner advance is decided again on the fresh job, one that another client's change beat is
 * refused. In-memory ports; end to end in test/e2e/definition-etag.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { definitionVersionOf } from '#core/definition-version';
import { ConflictError } from '#core/errors';
import type { StoredJob } from '#core/ports';
import { parseUpdateJob } from '#core/update-input';
import { cancelJob } from '#core/use-cases/cancel-job';
import { CHANGE_ATTEMPTS } from '#core/use-cases/change-job';
import { pauseJob, resumeJob } from '#core/use-cases/pause-resume-job';
import { scanDueJobs } from '#core/use-cases/scan-due-jobs';
import { updateJob } from '#core/use-cases/update-job';
import { jobView } from '#core/views';
import type { InMemoryJobRepository } from '../../../support/fakes/in-memory-jobs.ts';
import { every, HORIZON_MS, iso, NOW, setup, TENANT } from './manage-fixtures.ts';

const change = (input: Record<string, unknown>, now = NOW) => parseUpdateJob(input, now);

/**
 * Runs `before` ahead of each of the next `times` conditional replaces: a writer that wins the race
 * between a change's read and its write.
 */
function raceEachReplace(jobs: InMemoryJobRepository, times: number, before: () => Promise<unknown>) {
  const replace = jobs.replace.bind(jobs);
  let left = times;
  let attempts = 0;
  jobs.replace = async (job, expectedVersion) => {
    attempts += 1;
    if (left > 0) {
      left -= 1;
      await before();
    }
    return replace(job, expectedVersion);
  };
  return { attempts: () => attempts };
}

/** The scanner's advance of `jobId` by one occurrence, from whatever version it is at now. */
async function scannerAdvance(jobs: InMemoryJobRepository, jobId: string, now: number): Promise<void> {
  const current = (await jobs.get(TENANT, jobId)) as StoredJob;
  const moved = await jobs.advance(current, {
    nextFireAt: (current.nextFireAt ?? now) + 1_000,
    materialized: 1,
    now,
  });
  expect(moved).toBe(true);
}

describe('the definition version', () => {
  it('stays through the scanner advancing a job every second, so a PATCH with the tag read before succeeds', async () => {
    const { deps, jobs, create } = setup();
    const job = await create(every(1, NOW));
    const tag = jobView(job).version;

    for (let second = 1; second <= 5; second++) await scanDueJobs(deps, NOW + HORIZON_MS + second * 1_000);
    const advanced = (await jobs.get(TENANT, job.jobId)) as StoredJob;
    expect(advanced.version).toBeGreaterThan(job.version + 3);
    expect(jobView(advanced).version).toBe(tag);

    const updated = await updateJob(deps, TENANT, job.jobId, change({ name: 'renamed' }), tag, NOW + 6_000);
    expect(updated).toMatchObject({ name: 'renamed', definitionVersion: tag + 1, version: advanced.version + 1 });
    expect(jobView(updated).version).toBe(tag + 1);
  });

  it('is bumped by pause, resume and cancel, once each (a pause rewinding its runs is bookkeeping)', async () => {
    const { deps, create, runsOf } = setup();
    const job = await create(every(10, NOW));
    expect(runsOf(job.jobId).length).toBeGreaterThan(1); // runs ahead, which the pause un-materializes
    const paused = await pauseJob(deps, TENANT, job.jobId, NOW + 1);
    const resumed = await resumeJob(deps, TENANT, job.jobId, NOW + 2);
    const cancelled = await cancelJob(deps, TENANT, job.jobId, NOW + 3);

    expect([paused, resumed, cancelled].map((stored) => jobView(stored).version)).toEqual([2, 3, 4]);
    // The pause wrote twice (the pause, then the rewind of the runs it discarded); only one counts.
    expect(paused.version).toBe(job.version + 2);
    expect(definitionVersionOf(paused)).toBe(definitionVersionOf(job) + 1);
  });
});

describe('a PATCH racing the scanner', () => {
  it('is decided again on the advanced job and keeps the advance (count and position) under its own change', async () => {
    const { deps, jobs, create } = setup();
    const job = await create(every(1, NOW));
    const race = raceEachReplace(jobs, 2, () => scannerAdvance(jobs, job.jobId, NOW + 1_000));

    const updated = await updateJob(deps, TENANT, job.jobId, change({ name: 'mine' }), 1, NOW + 1_000);

    expect(race.attempts()).toBe(3);
    expect(updated).toMatchObject({
      name: 'mine',
      definitionVersion: 2,
      version: job.version + 3,
      occurrenceCount: job.occurrenceCount + 2,
      nextFireAt: (job.nextFireAt as number) + 2_000,
    });
    expect(await jobs.get(TENANT, job.jobId)).toEqual(updated);
  });

  it('with a new schedule: the new first slot wins over the advance it raced', async () => {
    const { deps, jobs, create } = setup();
    const job = await create(every(1, NOW));
    raceEachReplace(jobs, 1, () => scannerAdvance(jobs, job.jobId, NOW + 1_000));
    const startAt = NOW + 3_600_000;

    const updated = await updateJob(
      deps,
      TENANT,
      job.jobId,
      change({ schedule: { type: 'interval', everySeconds: 7200, startAt: iso(startAt) } }, NOW + 1_000),
      1,
      NOW + 1_000,
    );

    expect(updated).toMatchObject({ definitionVersion: 2, nextFireAt: startAt, occurrenceCount: 0 });
    expect(await jobs.get(TENANT, job.jobId)).toMatchObject({ nextFireAt: startAt, occurrenceCount: 0 });
  });

  it('is refused (409) when another client changed the job between its read and its write', async () => {
    const { deps, jobs, create } = setup();
    const job = await create(every(3600, NOW + 3_600_000));
    raceEachReplace(jobs, 1, () => updateJob(deps, TENANT, job.jobId, change({ name: 'theirs' }), 1, NOW));

    await expect(updateJob(deps, TENANT, job.jobId, change({ name: 'mine' }), 1, NOW)).rejects.toThrow(ConflictError);
    expect(await jobs.get(TENANT, job.jobId)).toMatchObject({ name: 'theirs', definitionVersion: 2 });
  });

  it('gives up with a 409 after a bounded number of lost races, writing nothing', async () => {
    const { deps, jobs, create } = setup();
    const job = await create(every(1, NOW));
    const race = raceEachReplace(jobs, Number.POSITIVE_INFINITY, () => scannerAdvance(jobs, job.jobId, NOW + 1_000));

    await expect(updateJob(deps, TENANT, job.jobId, change({ name: 'mine' }), 1, NOW + 1_000)).rejects.toThrow(
      /kept changing/,
    );
    expect(race.attempts()).toBe(CHANGE_ATTEMPTS);
    expect(await jobs.get(TENANT, job.jobId)).toMatchObject({ definitionVersion: 1 });
    expect((await jobs.get(TENANT, job.jobId))?.name).toBeUndefined();
  });
});

describe('a job stored before definition versions', () => {
  it('shows its internal version, keeps it through the scanner, and takes it as If-Match', async () => {
    const { deps, jobs, create } = setup();
    const created = await create(every(1, NOW));
    const { definitionVersion: _absent, ...legacy } = { ...created, version: 7 };
    jobs.items.set(`${TENANT}/${legacy.jobId}`, legacy);
    expect(jobView(legacy).version).toBe(7);

    await scanDueJobs(deps, NOW + HORIZON_MS + 1_000);
    await scanDueJobs(deps, NOW + HORIZON_MS + 2_000);
    const advanced = (await jobs.get(TENANT, legacy.jobId)) as StoredJob;
    expect(advanced.version).toBeGreaterThan(7);
    expect(advanced.definitionVersion).toBe(7);

    const updated = await updateJob(deps, TENANT, legacy.jobId, change({ name: 'migrated' }), 7, NOW + 3_000);
    expect(jobView(updated).version).toBe(8);
  });
});
