/**
 * What a one-time job's single occurrence, judged by its latest attempt, means for the job. The
 * completion handler applies it as each attempt ends; resume applies it to the attempt that ended
 * (or is still going) while the job was paused, when finishing the job could only fail:
 *  - QUEUED, RUNNING, or failed with a retry to come: in flight, its own completion decides;
 *  - SUCCEEDED: the job is COMPLETED; FAILED, TIMED_OUT, DEAD_LETTERED: FAILED;
 *  - SKIPPED because the job was paused (or CANCELLED, which a live job's run never is): the
 *    occurrence was not called, so it fires again, as a new attempt, once the job is ACTIVE;
 *  - SKIPPED for any other reason (overlap, after a PATCH of `schedule.at` moved the occurrence
 *    while the old run was in flight): the job's only occurrence did not run, so it is FAILED.
 */
import type { JobStatusCounts } from '../metrics/ports.ts';
import type { Run } from '../model.ts';
import type { JobRepository, RunDispatcher, RunRepository } from '../ports.ts';
import { dispatchRequestOf, sendRuns } from '../runs/send-runs.ts';
import { newRun, type RunSource } from './new-run.ts';

export type OccurrenceVerdict =
  | { kind: 'in-flight' }
  | { kind: 'refire' }
  | { kind: 'finish'; status: 'COMPLETED' | 'FAILED' };

export function verdictOf(latest: Pick<Run, 'status' | 'errorType' | 'nextAttemptAt'>): OccurrenceVerdict {
  if (latest.nextAttemptAt !== undefined) return { kind: 'in-flight' };
  switch (latest.status) {
    case 'QUEUED':
    case 'RUNNING':
      return { kind: 'in-flight' };
    case 'SUCCEEDED':
      return { kind: 'finish', status: 'COMPLETED' };
    case 'CANCELLED':
      return { kind: 'refire' };
    case 'SKIPPED':
      return latest.errorType === 'paused' ? { kind: 'refire' } : { kind: 'finish', status: 'FAILED' };
    default:
      return { kind: 'finish', status: 'FAILED' };
  }
}

export interface OccurrenceDeps {
  jobs: JobRepository;
  runs: RunRepository;
  dispatcher: RunDispatcher;
  config: { retentionDays: number };
  jobCounts?: JobStatusCounts;
}

/** Ends the one-time job with its occurrence's outcome (conditional: once, and only for that occurrence). */
export async function finishOneTimeJob(
  deps: Pick<OccurrenceDeps, 'jobs' | 'jobCounts'>,
  run: Pick<Run, 'tenantId' | 'jobId' | 'scheduledFor'>,
  status: 'COMPLETED' | 'FAILED' | 'CANCELLED',
  now: number,
): Promise<boolean> {
  if (!(await deps.jobs.finish(run.tenantId, run.jobId, status, now, run.scheduledFor))) return false;
  await deps.jobCounts?.shift(run.tenantId, 'ACTIVE', status);
  return true;
}

/**
 * Fires the occurrence of `latest` again, now, as attempt + 1. Deterministic run id: when
 * completion and resume both decide to, one run is made (and sent again while still QUEUED).
 */
export async function refireOccurrence(
  deps: OccurrenceDeps,
  latest: RunSource & Pick<Run, 'scheduledFor' | 'attempt'>,
  now: number,
): Promise<void> {
  const next = newRun(latest, latest.scheduledFor, latest.attempt + 1, now, deps.config.retentionDays);
  const created = await deps.runs.createIfAbsent(next);
  if (!created.created && created.existing.status !== 'QUEUED') return;
  await sendRuns(deps.dispatcher, [dispatchRequestOf(next, now)]);
}

/**
 * Applies the verdict of `latest` (an attempt of the one-time job's current occurrence) to an
 * ACTIVE job: finishes it, fires the occurrence again, or leaves it to the attempt in flight.
 */
export async function settleOneTimeJob(
  deps: OccurrenceDeps,
  latest: Run,
  now: number,
): Promise<'job-completed' | 'job-failed' | 'refired' | 'unchanged'> {
  const verdict = verdictOf(latest);
  if (verdict.kind === 'in-flight') return 'unchanged';
  if (verdict.kind === 'refire') {
    await refireOccurrence(deps, latest, now);
    return 'refired';
  }
  if (!(await finishOneTimeJob(deps, latest, verdict.status, now))) return 'unchanged';
  return verdict.status === 'COMPLETED' ? 'job-completed' : 'job-failed';
}
