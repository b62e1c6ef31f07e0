/**
 * Cancelling a job (DELETE): it becomes CANCELLED and leaves the due-index for good; the item
 * stays as history. Runs already queued are not touched here: the executor reads the job before
 * calling and records such a run as CANCELLED without calling the target, which also covers runs
 * a racing scan creates after this write. Cancelling a cancelled job is a no-op (idempotent);
 * a COMPLETED or FAILED job has already ended and cannot be cancelled (409).
 */
import { ConflictError } from '../errors.ts';
import type { JobStatusCounts } from '../metrics/ports.ts';
import type { JobRepository, StoredJob } from '../ports.ts';
import { changeJob, nextDefinitionOf, withoutDueEntry, withoutPauseState } from './change-job.ts';

/** ACTIVE or PAUSED → CANCELLED; returns the cancelled job (unchanged when it already was). */
export async function cancelJob(
  deps: { jobs: JobRepository; jobCounts?: JobStatusCounts },
  tenantId: string,
  jobId: string,
  now: number,
): Promise<StoredJob> {
  const { before, after, changed } = await changeJob(deps.jobs, tenantId, jobId, (job) => {
    if (job.status === 'CANCELLED') return 'unchanged';
    if (job.status !== 'ACTIVE' && job.status !== 'PAUSED') {
      throw new ConflictError(`job ${jobId} is ${job.status}; it has already ended`);
    }
    return { write: { ...withoutPauseState(withoutDueEntry(nextDefinitionOf(job, now))), status: 'CANCELLED' } };
  });
  if (changed) await deps.jobCounts?.shift(tenantId, before.status, 'CANCELLED');
  return after;
}
