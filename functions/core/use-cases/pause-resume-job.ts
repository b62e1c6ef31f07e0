/**
 * Pausing and resuming a job.
 *
 * Pause (ACTIVE → PAUSED) takes the job out of the due-index and un-materializes what it had
 * materialized for after the pause (at most one scan horizon ahead; discard-queued-runs.ts), so
 * a paused job stops calling its target at once. It remembers where it stood: `pausedAt`, and in
 * `pausedNextFireAt` the first occurrence it has not run (the earliest discarded one, or its
 * `nextFireAt`), with `occurrenceCount` reduced by what was discarded. A run already claimed by
 * an executor, or created by a scan racing with the pause, may still run.
 *
 * Resume (PAUSED → ACTIVE) puts the job back in the due-index at the remembered time. The
 * occurrences missed meanwhile are then the ordinary misfire case of the fire plan: the job's
 * misfire policy (fire_once / fire_all / skip) decides what they become, exactly as after an
 * outage, and those still ahead run as scheduled. A job due within the horizon is materialized at once.
 */
import { dueShardOf } from '../due-shard.ts';
import { ConflictError } from '../errors.ts';
import type { StoredJob } from '../ports.ts';
import { changeJob, nextVersionOf, withoutDueEntry, withoutPauseState } from './change-job.ts';
import { discardQueuedRunsAfter } from './discard-queued-runs.ts';
import { type MaterializeDeps, materializeOccurrences } from './materialize-occurrences.ts';

export type PauseDeps = Pick<MaterializeDeps, 'jobs' | 'runs'>;

/** ACTIVE → PAUSED; ConflictError from any other state. Returns the paused job. */
export async function pauseJob(deps: PauseDeps, tenantId: string, jobId: string, now: number): Promise<StoredJob> {
  const paused = await changeJob(deps.jobs, tenantId, jobId, (job) => {
    if (job.status !== 'ACTIVE') {
      throw new ConflictError(`job ${jobId} is ${job.status}; only an ACTIVE job can be paused`);
    }
    const write: StoredJob = { ...withoutDueEntry(nextVersionOf(job, now)), status: 'PAUSED', pausedAt: now };
    return { write: job.nextFireAt === undefined ? write : { ...write, pausedNextFireAt: job.nextFireAt } };
  });
  // Out of the due-index first, so no scan materializes more; then un-materialize what is ahead.
  const discarded = await discardQueuedRunsAfter(deps.runs, paused.after, now);
  if (discarded.earliest === undefined) return paused.after;
  const earliest = discarded.earliest;
  const rewound = await changeJob(deps.jobs, tenantId, jobId, (job) => {
    // Resumed (or changed) in the meantime: the newer state wins.
    if (job.status !== 'PAUSED' || job.pausedAt !== now) return 'unchanged';
    return {
      write: {
        ...nextVersionOf(job, now),
        pausedNextFireAt: Math.min(earliest, job.pausedNextFireAt ?? earliest),
        occurrenceCount: Math.max(0, job.occurrenceCount - discarded.count),
      },
    };
  });
  return rewound.after;
}

/** PAUSED → ACTIVE; ConflictError from any other state. Returns the job after any immediate materialization. */
export async function resumeJob(
  deps: MaterializeDeps,
  tenantId: string,
  jobId: string,
  now: number,
): Promise<StoredJob> {
  const { after } = await changeJob(deps.jobs, tenantId, jobId, (job) => {
    if (job.status !== 'PAUSED') {
      throw new ConflictError(`job ${jobId} is ${job.status}; only a PAUSED job can be resumed`);
    }
    const active: StoredJob = { ...withoutPauseState(nextVersionOf(job, now)), status: 'ACTIVE' };
    if (job.pausedNextFireAt === undefined) return { write: active };
    return {
      write: { ...active, nextFireAt: job.pausedNextFireAt, dueShard: dueShardOf(jobId, deps.config.shardCount) },
    };
  });
  if (after.nextFireAt === undefined) {
    // Nothing more could fire when it was paused: a recurring job is done.
    if (after.schedule.type !== 'once') await deps.jobs.completeExhausted(tenantId, jobId, now);
  } else if (after.nextFireAt <= now + deps.config.horizonMs) {
    await materializeOccurrences(deps, [{ ...after, nextFireAt: after.nextFireAt }], now);
  } else return after;
  return (await deps.jobs.get(tenantId, jobId)) ?? after;
}
