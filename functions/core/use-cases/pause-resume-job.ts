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
 * Resume (PAUSED → ACTIVE) puts the job back in the due-index. The occurrences that fell in the
 * pause are decided by the job's misfire policy (fire_once / fire_all / skip, resolveMisfire) as
 * after an outage, but with no grace: the scanner's grace (a minute) forgives ordinary lateness
 * and would replay every occurrence of a short pause whatever the policy, while a pause is
 * deliberate. Missed occurrences the policy fires are enqueued at once; the job moves to its first
 * slot after now, and occurrences still ahead run as scheduled (materialized at once when within
 * the horizon). A one-time job goes back to its `at` and fires however late.
 */
import { dueShardOf } from '../due-shard.ts';
import { ConflictError } from '../errors.ts';
import type { JobStatusCounts } from '../metrics/ports.ts';
import type { StoredJob } from '../ports.ts';
import { sendRuns } from '../runs/send-runs.ts';
import { DEFAULT_MISFIRE_CAP, resolveMisfire } from '../schedule/index.ts';
import { changeJob, nextVersionOf, withoutDueEntry, withoutPauseState } from './change-job.ts';
import { completeIfExhausted } from './complete-exhausted.ts';
import { discardQueuedRunsAfter } from './discard-queued-runs.ts';
import { type MaterializeDeps, materializeOccurrences } from './materialize-occurrences.ts';
import { newRun } from './new-run.ts';

export type PauseDeps = Pick<MaterializeDeps, 'jobs' | 'runs'> & { jobCounts?: JobStatusCounts };
export type ResumeDeps = MaterializeDeps;

/** ACTIVE → PAUSED; ConflictError from any other state. Returns the paused job. */
export async function pauseJob(deps: PauseDeps, tenantId: string, jobId: string, now: number): Promise<StoredJob> {
  const paused = await changeJob(deps.jobs, tenantId, jobId, (job) => {
    if (job.status !== 'ACTIVE') {
      throw new ConflictError(`job ${jobId} is ${job.status}; only an ACTIVE job can be paused`);
    }
    const write: StoredJob = { ...withoutDueEntry(nextVersionOf(job, now)), status: 'PAUSED', pausedAt: now };
    return { write: job.nextFireAt === undefined ? write : { ...write, pausedNextFireAt: job.nextFireAt } };
  });
  await deps.jobCounts?.shift(tenantId, 'ACTIVE', 'PAUSED');
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
export async function resumeJob(deps: ResumeDeps, tenantId: string, jobId: string, now: number): Promise<StoredJob> {
  const { after } = await changeJob(deps.jobs, tenantId, jobId, async (job) => {
    if (job.status !== 'PAUSED') {
      throw new ConflictError(`job ${jobId} is ${job.status}; only a PAUSED job can be resumed`);
    }
    const active: StoredJob = { ...withoutPauseState(nextVersionOf(job, now)), status: 'ACTIVE' };
    const resumeAt = job.pausedNextFireAt;
    if (resumeAt === undefined) return { write: active };
    const dueShard = dueShardOf(jobId, deps.config.shardCount);
    // A one-time job fires however late; a job with nothing missed simply goes back.
    if (job.schedule.type === 'once' || resumeAt >= now)
      return { write: { ...active, nextFireAt: resumeAt, dueShard } };

    // The pause was deliberate: every occurrence in it is missed, with no grace for lateness.
    const missed = resolveMisfire(
      job.policies.misfire,
      job.schedule,
      resumeAt,
      now,
      job.occurrenceCount,
      DEFAULT_MISFIRE_CAP,
      0,
    );
    // Runs before the job write: if this write loses, the same deterministic runs are found again, never lost.
    await enqueueMissed(deps, job, missed.fire, now);
    const resumed = { ...active, occurrenceCount: job.occurrenceCount + missed.fire.length };
    return {
      write: missed.nextFireAt === undefined ? resumed : { ...resumed, nextFireAt: missed.nextFireAt, dueShard },
    };
  });
  await deps.jobCounts?.shift(tenantId, 'PAUSED', 'ACTIVE');
  if (after.nextFireAt === undefined) {
    // Nothing more can fire: a recurring job is done.
    if (after.schedule.type !== 'once') await completeIfExhausted(deps, tenantId, jobId, now);
  } else if (after.nextFireAt <= now + deps.config.horizonMs) {
    await materializeOccurrences(deps, [{ ...after, nextFireAt: after.nextFireAt }], now);
  } else return after;
  return (await deps.jobs.get(tenantId, jobId)) ?? after;
}

/** Creates and sends (now) the runs of the missed occurrences the misfire policy fires. */
async function enqueueMissed(deps: MaterializeDeps, job: StoredJob, occurrences: number[], now: number): Promise<void> {
  const runs = occurrences.map((scheduledFor) => newRun(job, scheduledFor, 1, now, deps.config.retentionDays));
  const created = await Promise.all(runs.map((run) => deps.runs.createIfAbsent(run)));
  // An existing run is one an earlier attempt of this resume created: send it again (harmless duplicate).
  const toSend = runs.filter((_, i) => created[i]?.created || created[i]?.existing.status === 'QUEUED');
  await sendRuns(
    deps.dispatcher,
    toSend.map(({ tenantId, jobId, scheduledFor, attempt, runId }) => ({
      message: { tenantId, jobId, scheduledFor, attempt, runId },
      releaseAt: now,
    })),
  );
}
