/** A tenant's jobs, filtered and paged (GET /v1/jobs). */
import type { JobListQuery, JobRepository, Page, StoredJob } from '../ports.ts';

/** One page of the tenant's jobs in creation order; only ever the tenant's own. */
export async function listJobs(
  deps: { jobs: JobRepository },
  tenantId: string,
  query: JobListQuery,
): Promise<Page<StoredJob>> {
  return deps.jobs.listByTenant(tenantId, query);
}
