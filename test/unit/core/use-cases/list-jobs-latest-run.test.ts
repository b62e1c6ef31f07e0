import { describe, expect, it } from 'vitest';
import type { RunRepository } from '#core/ports';
import { listJobsWithLatestRuns } from '#core/use-cases/list-jobs';
import { every, NOW, setup, TENANT } from './manage-fixtures.ts';

describe('listing jobs with their latest runs', () => {
  it('gives each job its newest run, and none to a job that has not run', async () => {
    const { deps, create, runsOf } = setup();
    const ran = await create({ name: 'now', schedule: { type: 'once' } });
    const later = await create({ name: 'later', ...every(3600, NOW + 3_600_000) });
    const [run] = runsOf(ran.jobId);

    const page = await listJobsWithLatestRuns(deps, TENANT, { limit: 10 }, () => undefined);

    expect(run).toBeDefined();
    expect(page.items.map(({ job, latestRun }) => [job.jobId, latestRun?.runId])).toEqual([
      [ran.jobId, run?.runId],
      [later.jobId, undefined],
    ]);
  });

  it('reads the newest attempt of the newest occurrence', async () => {
    const { deps, create, runs, runsOf } = setup();
    const job = await create({ name: 'retried', schedule: { type: 'once' } });
    const [first] = runsOf(job.jobId);
    if (!first) throw new Error('no first run');
    await runs.createIfAbsent({ ...first, attempt: 2, runId: `${first.runId}-2`, status: 'QUEUED' });

    const page = await listJobsWithLatestRuns(deps, TENANT, { limit: 10 }, () => undefined);

    expect(page.items[0]?.latestRun).toMatchObject({ attempt: 2, scheduledFor: first.scheduledFor });
  });

  it("lists a job whose run cannot be read without it, says why, and keeps the others' runs", async () => {
    const { deps, create, runsOf } = setup();
    const broken = await create({ name: 'broken', schedule: { type: 'once' } });
    const fine = await create({ name: 'fine', schedule: { type: 'once' } });
    const runs: Pick<RunRepository, 'listByJob'> = {
      listByJob: async (tenantId, jobId, options) => {
        if (jobId === broken.jobId) throw new Error('unreadable run item');
        return deps.runs.listByJob(tenantId, jobId, options);
      },
    };
    const unread: Array<[string, string]> = [];

    const page = await listJobsWithLatestRuns({ ...deps, runs }, TENANT, { limit: 10 }, (jobId, error) =>
      unread.push([jobId, (error as Error).message]),
    );

    expect(page.items.map(({ job }) => job.jobId)).toEqual([broken.jobId, fine.jobId]);
    expect(page.items[0]?.latestRun).toBeUndefined();
    expect(page.items[1]?.latestRun?.runId).toBe(runsOf(fine.jobId)[0]?.runId);
    expect(unread).toEqual([[broken.jobId, 'unreadable run item']]);
  });

  it("keeps the jobs page's cursor", async () => {
    const { deps, create } = setup();
    await create({ name: 'a', ...every(3600, NOW + 3_600_000) });
    await create({ name: 'b', ...every(3600, NOW + 3_600_000) });

    const first = await listJobsWithLatestRuns(deps, TENANT, { limit: 1 }, () => undefined);
    const second = await listJobsWithLatestRuns(
      deps,
      TENANT,
      { limit: 1, cursor: first.cursor as string },
      () => undefined,
    );

    expect(first.cursor).toBeDefined();
    expect(second.items.map(({ job }) => job.name)).toEqual(['b']);
  });
});
