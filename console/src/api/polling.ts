/**
 * How often what is shown is read again while it may change by itself. Pages do not poll what only
 * the user changes: their own actions refresh it.
 */
import type { Job } from '@chronos/client';

/** While something shown is moving (a run not ended, a job about to follow its run's end). */
export const MOVING_MS = 2_000;
/** While a job may add runs or move its next occurrence. */
export const ACTIVE_JOB_MS = 10_000;
/**
 * How long after its one time a one-time job is read at MOVING_MS: its run's end finishes it a
 * moment after the run's own record (the completion handler reads the runs' stream), so a job read
 * when the run ended may still say ACTIVE. Retries after a long backoff are followed at ACTIVE_JOB_MS.
 */
export const SETTLING_MS = 120_000;

/** How often a job's page reads the job again; false once the job can no longer change by itself. */
export function jobRefetchMs(job: Job | undefined, now: number): number | false {
  if (job?.status !== 'ACTIVE') return false;
  if (job.schedule.type !== 'once') return ACTIVE_JOB_MS;
  const at = Date.parse(job.schedule.at ?? job.createdAt ?? '');
  return Number.isFinite(at) && now >= at && now - at < SETTLING_MS ? MOVING_MS : ACTIVE_JOB_MS;
}
