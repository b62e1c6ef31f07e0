/**
 * Cancelling a job (DELETE): it becomes CANCELLED and leaves the due-index for good; the item
 * stays as history. Runs already queued are not touched here: the executor reads the job before
 * calling and records such a run as CANCELLED without calling the target, which also covers runs
 * a racing scan creates after this write. Cancelling a cancelled job is a no-op (idempotent);
 * a COMPLETED or FAILED job has already ended and cannot be cancelled (409).
 *
 * An async job's runs in flight are asked to stop as a run's cancel would (use-cases/async/
 * cancel-run.ts): their next heartbeat answers `cancelRequested: true`, and each ends CANCELLED
 * once its grace passes. Asked again when the job is cancelled again: a request that failed the
 * first time can be made up for.
 */
import { ConflictError } from '../errors.ts';
import type { JobStatusCounts } from '../metrics/ports.ts';
import type { JobRepository, StoredJob } from '../ports.ts';
import { changeJob, nextDefinitionOf, withoutDueEntry, withoutPauseState } from './change-job.ts';

/** ACTIVE or PAUSED → CANCELLED; returns the cancelled job (unchanged when it already was). */
export async function cancelJob(
  deps: {
    jobs: JobRepository;
    jobCounts?: JobStatusCounts;
    /** Asks a job's async runs in flight to stop; how many were asked. */
    cancelAsyncRuns?: (tenantId: string, jobId: string) => Promise<number>;
  },
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
  // Only a job that is async can have async runs in flight (one made synchronous by a PATCH
  // leaves its earlier runs to their own deadlines).
  if (after.async && deps.cancelAsyncRuns) await deps.cancelAsyncRuns(tenantId, jobId);
  return after;
}
