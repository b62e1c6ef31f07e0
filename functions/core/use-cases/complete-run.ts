/**
 * Reacts to a run that has just reached a terminal state (the completion handler, fed by the runs
 * stream). A one-time job is finished by its single occurrence: it becomes COMPLETED or FAILED and
 * has already left the due-index when the occurrence was materialized. A recurring job keeps its
 * schedule whatever one run did, and becomes COMPLETED once its schedule is exhausted (endAt or
 * maxRuns) and a run ends after that.
 */
import type { Run } from '../model.ts';
import type { JobRepository } from '../ports.ts';
import type { TerminalRunStatus } from '../run-state.ts';

export interface CompleteRunDeps {
  jobs: JobRepository;
}

export type CompletedRun = Pick<Run, 'tenantId' | 'jobId' | 'scheduledFor' | 'attempt' | 'runId'> & {
  status: TerminalRunStatus;
};

/** Applies a terminal run to its job; returns what changed. */
export async function completeRun(
  deps: CompleteRunDeps,
  run: CompletedRun,
  now: number,
): Promise<'job-completed' | 'job-failed' | 'unchanged'> {
  if (run.status === 'CANCELLED') return 'unchanged';
  // A recurring job ends when its schedule is exhausted, whatever its last run did.
  if (await deps.jobs.completeExhausted(run.tenantId, run.jobId, now)) return 'job-completed';
  if (run.status === 'SKIPPED') return 'unchanged';
  const status = run.status === 'SUCCEEDED' ? 'COMPLETED' : 'FAILED';
  const changed = await deps.jobs.finish(run.tenantId, run.jobId, status, now);
  if (!changed) return 'unchanged';
  return status === 'COMPLETED' ? 'job-completed' : 'job-failed';
}
