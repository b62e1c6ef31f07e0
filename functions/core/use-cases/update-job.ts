/**
 * Changes a job (PATCH). Optimistic concurrency: the caller names the definition version it read
 * (If-Match; definition-version.ts), so a change based on a stale read is refused (409) instead of
 * silently overwriting someone else's. The scanner's advances do not change that version: the
 * write is conditioned on the internal version read with it, and a write lost to an advance is
 * decided again on the fresh job (changeJob), as long as its definition version still matches.
 *
 * A new schedule reschedules the job from now on, in the same conditional write: `nextFireAt`
 * becomes the new schedule's first slot at or after now (its `dueShard` with it) and
 * `occurrenceCount` restarts at 0, so the old schedule's missed occurrences are never fired
 * retroactively and the new one's maxRuns counts from the change. Runs the old schedule already
 * materialized for the future are discarded while still QUEUED (discard-queued-runs.ts); a run
 * an executor has already claimed, or one created by a scan racing with the change, may still
 * run. A job due within the horizon is materialized at once. A quarantined job (the scanner could
 * not plan or advance it) leaves quarantine with a new schedule: it goes back into the due-index.
 *
 * A new schedule materialized at once (an ACTIVE job whose first slot is within the horizon)
 * restarts the job now, outside what its schedule would have done: such a PATCH takes one token
 * from the tenant's trigger bucket before it writes, so re-PATCHing a job to fire now is held to
 * `triggersPerSecond` like a trigger. One token per PATCH, not per run: the runs it materializes
 * are the new schedule's own, and those the old one had materialized ahead are discarded.
 *
 * A new `retry`, `delivery` or onFailure URL needs no rescheduling: nothing copies them into runs.
 * The executor reads the job when it picks an attempt up, and decides from it whether that attempt
 * is retried (and for at-most-once whether an expired lease may be taken over); the completion
 * handler and the notifier read the job's onFailure URL when a failure ends an occurrence. So
 * every attempt picked up after the change — already QUEUED or not — follows the new values,
 * while a retry already scheduled (its run created by the completion handler) still runs.
 */
import { definitionVersionOf } from '../definition-version.ts';
import { dueShardOf } from '../due-shard.ts';
import { ConflictError } from '../errors.ts';
import { requireFirstFireAt } from '../first-occurrence.ts';
import { storedPriority } from '../job-input.ts';
import type { JobStatus } from '../model.ts';
import type { StoredJob } from '../ports.ts';
import type { RunCreationMeter } from '../tenants/run-creation-meter.ts';
import type { JobChange } from '../update-input.ts';
import { changeJob, nextDefinitionOf, withoutDueEntry } from './change-job.ts';
import { discardQueuedRunsAfter } from './discard-queued-runs.ts';
import { type MaterializeDeps, materializeOccurrences } from './materialize-occurrences.ts';

/** Jobs in these states have ended; they are kept as history and cannot change. */
export const FINISHED_STATUSES: readonly JobStatus[] = ['COMPLETED', 'FAILED', 'CANCELLED'];

/** Applies `change` to the job if it is still at definition version `expectedVersion`; returns the job as stored after it. */
export async function updateJob(
  deps: MaterializeDeps,
  tenantId: string,
  jobId: string,
  change: JobChange,
  expectedVersion: number,
  now: number,
  meter?: RunCreationMeter,
): Promise<StoredJob> {
  let metered = false;
  const { after } = await changeJob(deps.jobs, tenantId, jobId, async (job) => {
    if (FINISHED_STATUSES.includes(job.status)) throw new ConflictError(`job ${jobId} is ${job.status}`);
    const current = definitionVersionOf(job);
    if (current !== expectedVersion) {
      throw new ConflictError(`job ${jobId} is at version ${current}, not ${expectedVersion}; re-read it`);
    }
    const write = applyChange(job, change, deps.config.shardCount, now);
    if (
      !metered &&
      change.schedule &&
      write.nextFireAt !== undefined &&
      write.nextFireAt <= now + deps.config.horizonMs
    ) {
      await meter?.take(1);
      metered = true;
    }
    return { write };
  });
  if (!change.schedule) return after;

  await discardQueuedRunsAfter(deps.runs, after, now);
  if (after.nextFireAt === undefined || after.nextFireAt > now + deps.config.horizonMs) return after;
  await materializeOccurrences(deps, [{ ...after, nextFireAt: after.nextFireAt }], now);
  return (await deps.jobs.get(tenantId, jobId)) ?? after;
}

/**
 * The job after `change`, one (definition) version on; a new schedule restarts it from `now`.
 * Also a workflow head's (use-cases/workflows/update-workflow.ts): its schedule changes as a job's.
 */
export function applyChange(job: StoredJob, change: JobChange, shardCount: number, now: number): StoredJob {
  // A null removes the field: onFailure's URL (the notifier then drops the job's notices:
  // deliver-failure-notice.ts), async (calls are synchronous again; runs already called keep their copy).
  const kept: StoredJob = { ...job };
  if (change.onFailureUrl === null) delete kept.onFailureUrl;
  if (change.async === null) delete kept.async;
  // A new lane for the runs made from now on; `normal` is stored as no lane (runs already made keep theirs).
  if (change.priority !== undefined) delete kept.priority;
  if (change.flowControl === null) delete kept.flowControl;
  const next: StoredJob = {
    ...nextDefinitionOf(kept, now),
    ...(change.async ? { async: change.async } : {}),
    ...storedPriority(change.priority),
    ...(change.flowControl ? { flowControl: change.flowControl } : {}),
    ...(change.name === undefined ? {} : { name: change.name }),
    ...(change.target === undefined ? {} : { target: change.target }),
    ...(change.timeoutSeconds === undefined ? {} : { timeoutSeconds: change.timeoutSeconds }),
    ...(change.slaSeconds === undefined ? {} : { slaSeconds: change.slaSeconds }),
    ...(change.retry === undefined ? {} : { retry: change.retry }),
    ...(change.delivery === undefined ? {} : { delivery: change.delivery }),
    ...(typeof change.onFailureUrl === 'string' ? { onFailureUrl: change.onFailureUrl } : {}),
    policies: { ...job.policies, ...change.policies },
  };
  if (!change.schedule) return next;

  const first = requireFirstFireAt(change.schedule, now);
  // A new schedule is a fresh start: a quarantine (the old schedule could not be planned) ends with it.
  const { quarantine: _cleared, ...fresh } = withoutDueEntry(next);
  const rescheduled: StoredJob = { ...fresh, schedule: change.schedule, occurrenceCount: 0 };
  // A paused job keeps its new first slot for resume; an active one goes straight into the due-index.
  if (job.status === 'PAUSED') return { ...rescheduled, pausedNextFireAt: first };
  return { ...rescheduled, nextFireAt: first, dueShard: dueShardOf(job.jobId, shardCount) };
}
