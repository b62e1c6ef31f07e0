/** Tenant-scoped reads: another tenant's ids are indistinguishable from unknown ones (404). */
import { NotFoundError } from '../errors.ts';
import type { Job, Run } from '../model.ts';
import type { JobRepository, Page, RunRepository } from '../ports.ts';

export interface ReadDeps {
  jobs: JobRepository;
  runs: RunRepository;
}

/** The job and its newest run; NotFoundError if the tenant has no such job. */
export async function getJob(deps: ReadDeps, tenantId: string, jobId: string): Promise<{ job: Job; latestRun?: Run }> {
  const [job, latest] = await Promise.all([
    deps.jobs.get(tenantId, jobId),
    deps.runs.listByJob(tenantId, jobId, { limit: 1 }),
  ]);
  if (!job) throw new NotFoundError(`job ${jobId}`);
  const latestRun = latest.items[0];
  return latestRun ? { job, latestRun } : { job };
}

/** A page of the job's runs, newest first; NotFoundError if the tenant has no such job. */
export async function listRuns(
  deps: ReadDeps,
  tenantId: string,
  jobId: string,
  page: { limit: number; cursor?: string },
): Promise<Page<Run>> {
  const job = await deps.jobs.get(tenantId, jobId);
  if (!job) throw new NotFoundError(`job ${jobId}`);
  return deps.runs.listByJob(tenantId, jobId, page);
}
