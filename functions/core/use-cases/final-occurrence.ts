/**
 * The race at the end of a recurring schedule. Its final run is sent before the advance that
 * removes the job's `nextFireAt` is written, so the run can finish first: its completion then
 * tries to complete the job while it still has a `nextFireAt`, and fails. So the advance looks
 * once more, after it is written: if the final occurrence has already ended for good, the job is
 * completed here. If it has not, its completion comes after the advance and completes the job
 * itself. Either way exactly one of them sees both "no nextFireAt" and "final run ended".
 */
import type { JobStatusCounts } from '../metrics/ports.ts';
import type { JobRepository, RunRepository } from '../ports.ts';
import { isTerminal } from '../run-state.ts';
import { completeIfExhausted } from './complete-exhausted.ts';

/** Attempts of one occurrence followed at most (far above any retry policy's maxAttempts). */
const MAX_ATTEMPTS_FOLLOWED = 100;

/**
 * Completes the job if the final occurrence `scheduledFor` has ended for good: its latest attempt
 * is terminal and schedules no retry. One GetItem in the usual case (attempt 1 not retried).
 */
export async function completeIfFinalRunEnded(
  deps: { jobs: JobRepository; runs: RunRepository; jobCounts?: JobStatusCounts },
  occurrence: { tenantId: string; jobId: string; scheduledFor: number },
  now: number,
): Promise<boolean> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS_FOLLOWED; attempt++) {
    const run = await deps.runs.get({ ...occurrence, attempt });
    // Not made yet, or still going: its own completion comes after the advance and ends the job.
    if (!run || !isTerminal(run.status)) return false;
    if (run.nextAttemptAt === undefined) {
      return completeIfExhausted(deps, occurrence.tenantId, occurrence.jobId, now);
    }
  }
  return false;
}
