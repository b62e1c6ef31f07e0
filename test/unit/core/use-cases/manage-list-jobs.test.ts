import { describe, expect, it } from 'vitest';
import { listJobs } from '#core/use-cases/list-jobs';
import { every, NOW, setup, TENANT } from './manage-fixtures.ts';

async function threeJobs() {
  const context = setup();
  const a = await context.create({ name: 'report-daily', ...every(3600, NOW + 3_600_000) });
  const b = await context.create({ name: 'cleanup', schedule: { type: 'once', at: '2027-01-01T00:00:00Z' } });
  const c = await context.create({ name: 'report-hourly', schedule: { type: 'cron', expression: '0 * * * *' } });
  await context.create({ name: 'report-other-tenant', ...every(60, NOW + 3_600_000) }, NOW, 'tenant-b');
  return { ...context, ids: [a.jobId, b.jobId, c.jobId] };
}

describe('listing jobs', () => {
  it("lists only the tenant's own jobs, oldest first", async () => {
    const { deps, ids } = await threeJobs();

    const page = await listJobs(deps, TENANT, { limit: 10 });

    expect(page.items.map((job) => job.jobId)).toEqual(ids);
    expect(page.cursor).toBeUndefined();
  });

  it('filters by status, schedule type and name prefix together', async () => {
    const { deps, jobs, ids } = await threeJobs();
    const stored = jobs.items.get(`${TENANT}/${ids[2]}`);
    if (stored) stored.status = 'PAUSED';

    const reports = await listJobs(deps, TENANT, { limit: 10, name: 'report' });
    const paused = await listJobs(deps, TENANT, { limit: 10, status: 'PAUSED' });
    const activeIntervals = await listJobs(deps, TENANT, { limit: 10, status: 'ACTIVE', type: 'interval' });

    expect(reports.items.map((job) => job.name)).toEqual(['report-daily', 'report-hourly']);
    expect(paused.items.map((job) => job.jobId)).toEqual([ids[2]]);
    expect(activeIntervals.items.map((job) => job.jobId)).toEqual([ids[0]]);
  });

  it('pages through filtered results with a cursor until every match was returned once', async () => {
    const { deps } = await threeJobs();

    const first = await listJobs(deps, TENANT, { limit: 1, name: 'report' });
    const second = await listJobs(deps, TENANT, { limit: 1, name: 'report', ...{ cursor: first.cursor as string } });

    expect(first.items.map((job) => job.name)).toEqual(['report-daily']);
    expect(first.cursor).toBeDefined();
    expect(second.items.map((job) => job.name)).toEqual(['report-hourly']);
    expect(second.cursor).toBeUndefined();
  });
});
