/** A tenant's jobs, filtered and paged (GET /v1/jobs). */
import type { Run } from '../model.ts';
import type { JobListQuery, JobRepository, Page, RunRepository, StoredJob } from '../ports.ts';

/** One page of the tenant's jobs in creation order; only ever the tenant's own. */
export async function listJobs(
  deps: { jobs: JobRepository },
  tenantId: string,
  query: JobListQuery,
): Promise<Page<StoredJob>> {
  return deps.jobs.listByTenant(tenantId, query);
}

export interface ListedJob {
  job: StoredJob;
  latestRun?: Run;
}

/**
 * One page of the tenant's jobs, each with its newest run, as GET /v1/jobs answers it (a jobs
 * table shows the last run's status and time): one Query of at most one run per job, in parallel.
 * A job whose run cannot be read is listed without it, and `onUnreadRun` hears why: one bad run
 * record must not take the page down.
 */
export async function listJobsWithLatestRuns(
  deps: { jobs: JobRepository; runs: Pick<RunRepository, 'listByJob'> },
  tenantId: string,
  query: JobListQuery,
  onUnreadRun: (jobId: string, error: unknown) => void,
): Promise<Page<ListedJob>> {
  const page = await listJobs(deps, tenantId, query);
  const items = await Promise.all(
    page.items.map(async (job): Promise<ListedJob> => {
      try {
        const [latestRun] = (await deps.runs.listByJob(tenantId, job.jobId, { limit: 1 })).items;
        return latestRun ? { job, latestRun } : { job };
      } catch (error) {
        onUnreadRun(job.jobId, error);
        return { job };
      }
    }),
  );
  return page.cursor === undefined ? { items } : { items, cursor: page.cursor };
}
