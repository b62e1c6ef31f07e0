import { describe, expect, it } from 'vitest';
import { pauseJob } from '#core/use-cases/pause-resume-job';
import { listRuns, upcomingOccurrences } from '#core/use-cases/read-jobs';
import { triggerJob } from '#core/use-cases/trigger-job';
import { every, NOW, setup, TENANT } from './manage-fixtures.ts';

describe("a job's upcoming occurrences", () => {
  it('lists the next five from now, the materialized ones included', async () => {
    const { create } = setup();
    const job = await create(every(30, NOW)); // materialized up to +90 s, nextFireAt +120 s

    const upcoming = upcomingOccurrences(job, NOW + 10_000);

    expect(upcoming).toEqual([30_000, 60_000, 90_000, 120_000, 150_000].map((offset) => NOW + offset));
  });

  it('stops where maxRuns ends the schedule', async () => {
    const { create } = setup();
    const job = await create({
      schedule: { type: 'interval', everySeconds: 3600, startAt: new Date(NOW + 3_600_000).toISOString(), maxRuns: 2 },
    });

    expect(upcomingOccurrences(job, NOW)).toEqual([NOW + 3_600_000, NOW + 7_200_000]);
  });

  it('is empty for a job that is not ACTIVE', async () => {
    const { deps, create } = setup();
    const job = await create(every(30, NOW + 3_600_000));
    const paused = await pauseJob(deps, TENANT, job.jobId, NOW);

    expect(upcomingOccurrences(paused, NOW)).toEqual([]);
  });
});

describe("listing a job's runs", () => {
  it('narrows to a time range and a status, newest first', async () => {
    const { deps, create, runs } = setup();
    const job = await create(every(30, NOW)); // runs at +0, +30, +60, +90 s
    const {
      items: [first],
    } = await runs.listByJob(TENANT, job.jobId, { limit: 1, to: NOW });
    if (!first) throw new Error('expected a run at NOW');
    await runs.claim(first, { owner: 'e', expiresAt: NOW + 60_000, now: NOW, takeOverExpired: true });
    await triggerJob(deps, TENANT, job.jobId, NOW + 45_000);

    const range = await listRuns(deps, TENANT, job.jobId, { limit: 10, from: NOW + 30_000, to: NOW + 60_000 });
    const queued = await listRuns(deps, TENANT, job.jobId, { limit: 10, status: 'QUEUED', to: NOW + 30_000 });

    expect(range.items.map((run) => run.scheduledFor)).toEqual([NOW + 60_000, NOW + 45_000, NOW + 30_000]);
    expect(queued.items.map((run) => run.scheduledFor)).toEqual([NOW + 30_000]);
  });
});
