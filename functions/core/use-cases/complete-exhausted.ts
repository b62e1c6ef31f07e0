/**
 * Ends a recurring job whose schedule has nothing more to fire: COMPLETED, and its tenant's
 * status counter moved with it. Conditional (ACTIVE, no next occurrence), so racing callers
 * complete it once; true for the one that did.
 */
import type { JobStatusCounts } from '../metrics/ports.ts';
import type { JobRepository } from '../ports.ts';

export async function completeIfExhausted(
  deps: { jobs: JobRepository; jobCounts?: JobStatusCounts },
  tenantId: string,
  jobId: string,
  now: number,
): Promise<boolean> {
  if (!(await deps.jobs.completeExhausted(tenantId, jobId, now))) return false;
  await deps.jobCounts?.shift(tenantId, 'ACTIVE', 'COMPLETED');
  return true;
}
