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
 *
 * A job with no next occurrence when it is resumed ends consistently with its runs. The job is
 * made ACTIVE first, then its latest run is read: a run that ended meanwhile either is seen by
 * that read or finds the job ACTIVE when its completion runs. A one-time job whose run ran during
 * the pause (finishing it could not be written then) is finished from that run's outcome; one
 * whose run was skipped as paused fires again (attempt + 1); one whose run is still in flight is
 * left to that run's completion. A recurring job whose catch-up runs include its final occurrence
 * is completed by that run's completion, after it ran; sent only once the job is ACTIVE, so no
 * catch-up run is skipped as paused.
 *
 * Catch-up runs are runs created by hand: before any is created, resume takes one token per
 * catch-up run (at most the whole bucket) from the tenant's trigger bucket, and a refusal
 * (RateLimitedError, 429) leaves the job PAUSED with nothing created.
 */
import { dueShardOf } from '../due-shard.ts';
import { ConflictError } from '../errors.ts';
import type { JobStatusCounts } from '../metrics/ports.ts';
import type { Run } from '../model.ts';
import type { StoredJob } from '../ports.ts';
import { dispatchRequestOf, sendRuns } from '../runs/send-runs.ts';
import { DEFAULT_MISFIRE_CAP, resolveMisfire } from '../schedule/index.ts';
import type { RunCreationMeter } from '../tenants/run-creation-meter.ts';
import { changeJob, nextDefinitionOf, nextVersionOf, withoutDueEntry, withoutPauseState } from './change-job.ts';
import { completeIfExhausted } from './complete-exhausted.ts';
import { discardQueuedRunsAfter } from './discard-queued-runs.ts';
import { type MaterializeDeps, materializeOccurrences } from './materialize-occurrences.ts';
import { newRun } from './new-run.ts';
import { settleOneTimeJob, verdictOf } from './one-time-occurrence.ts';

export type PauseDeps = Pick<MaterializeDeps, 'jobs' | 'runs'> & { jobCounts?: JobStatusCounts };
export type ResumeDeps = MaterializeDeps;

/** ACTIVE → PAUSED; ConflictError from any other state. Returns the paused job. */
export async function pauseJob(deps: PauseDeps, tenantId: string, jobId: string, now: number): Promise<StoredJob> {
  const paused = await changeJob(deps.jobs, tenantId, jobId, (job) => {
    if (job.status !== 'ACTIVE') {
      throw new ConflictError(`job ${jobId} is ${job.status}; only an ACTIVE job can be paused`);
    }
    const write: StoredJob = { ...withoutDueEntry(nextDefinitionOf(job, now)), status: 'PAUSED', pausedAt: now };
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
    // Bookkeeping of the pause just written: its definition version stays.
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
  deps: ResumeDeps,
  tenantId: string,
  jobId: string,
  now: number,
  meter?: RunCreationMeter,
): Promise<StoredJob> {
  let catchUp: Run[] = [];
  // Tokens already taken for catch-up runs: a write that lost a race and decides again pays only the difference.
  let metered = 0;
  const { after } = await changeJob(deps.jobs, tenantId, jobId, async (job) => {
    catchUp = [];
    if (job.status !== 'PAUSED') {
      throw new ConflictError(`job ${jobId} is ${job.status}; only a PAUSED job can be resumed`);
    }
    const active: StoredJob = { ...withoutPauseState(nextDefinitionOf(job, now)), status: 'ACTIVE' };
    const resumeAt = job.pausedNextFireAt;
    if (resumeAt === undefined) return { write: active };
    const dueShard = dueShardOf(jobId, deps.config.shardCount);
    // A one-time job fires however late; a job with nothing missed simply goes back; so does a
    // quarantined one, for the scanner to judge afresh (and quarantine again if it still fails).
    if (job.schedule.type === 'once' || resumeAt >= now || job.quarantine !== undefined)
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
    if (meter && missed.fire.length > metered) {
      await meter.take(missed.fire.length - metered);
      metered = missed.fire.length;
    }
    // Runs before the job write: if this write loses, the same deterministic runs are found again,
    // never lost. The last one ends a schedule with nothing after it: its completion completes the job.
    catchUp = await createMissed(deps, job, missed.fire, missed.nextFireAt === undefined, now);
    const resumed = { ...active, occurrenceCount: job.occurrenceCount + missed.fire.length };
    return {
      write: missed.nextFireAt === undefined ? resumed : { ...resumed, nextFireAt: missed.nextFireAt, dueShard },
    };
  });
  await deps.jobCounts?.shift(tenantId, 'PAUSED', 'ACTIVE');
  // Sent once the job is ACTIVE: sent before, an executor could skip them as paused.
  await sendRuns(
    deps.dispatcher,
    catchUp.map((run) => dispatchRequestOf(run, now)),
  );
  if (after.nextFireAt === undefined) {
    // Nothing left to schedule: the job ends by what its latest occurrence came to, read only
    // now that the job is ACTIVE, so a run ending meanwhile is seen here or ends the job itself.
    await settleWithNothingLeft(deps, after, now);
  } else if (after.nextFireAt <= now + deps.config.horizonMs) {
    await materializeOccurrences(deps, [{ ...after, nextFireAt: after.nextFireAt }], now);
  } else return after;
  return (await deps.jobs.get(tenantId, jobId)) ?? after;
}

/** Runs read per page, and pages at most, to find a recurring job's latest scheduled (not triggered) run. */
const LATEST_RUNS_PAGE = 10;
const LATEST_RUNS_PAGES = 20;

/**
 * The job's newest run that its schedule made. Triggers (allowed while paused) are newer than the
 * catch-up runs of the occurrences missed in the pause, so they are paged past, not counted.
 */
async function latestScheduledRun(deps: ResumeDeps, job: StoredJob): Promise<Run | undefined> {
  let until = Number.MAX_SAFE_INTEGER;
  for (let page = 0; page < LATEST_RUNS_PAGES; page++) {
    const runs = await deps.runs.latestRuns(job, until, LATEST_RUNS_PAGE);
    const scheduled = runs.find((run) => !run.triggered);
    if (scheduled || runs.length < LATEST_RUNS_PAGE) return scheduled;
    until = (runs.at(-1)?.scheduledFor ?? 0) - 1;
  }
  return undefined;
}

/**
 * A resumed job with no next occurrence. A one-time job's occurrence ran, or is running, while it
 * was paused (its finish could not be written then): settleOneTimeJob finishes it, fires it again
 * if it was skipped as paused, or leaves it to the attempt in flight; with no run at all it goes
 * back to its `at`. A recurring job is complete, unless the run of its final occurrence (a
 * catch-up run just sent, or one still in flight) is to complete it when it has run.
 */
async function settleWithNothingLeft(deps: ResumeDeps, job: StoredJob, now: number): Promise<void> {
  if (job.schedule.type === 'once') {
    const at = job.schedule.at;
    const [latest] = await deps.runs.latestRuns(job, at, 1);
    if (latest?.scheduledFor === at) await settleOneTimeJob(deps, latest, now);
    else await fireAgainAt(deps, job, at, now);
    return;
  }
  const latest = await latestScheduledRun(deps, job);
  if (latest?.finalOccurrence && verdictOf(latest).kind === 'in-flight') return;
  await completeIfExhausted(deps, job.tenantId, job.jobId, now);
}

/** Puts a one-time job whose run is gone (expired with its retention) back in the due-index at its `at`. */
async function fireAgainAt(deps: ResumeDeps, job: StoredJob, at: number, now: number): Promise<void> {
  const { after, changed } = await changeJob(deps.jobs, job.tenantId, job.jobId, (current) => {
    if (current.status !== 'ACTIVE' || current.nextFireAt !== undefined || current.version !== job.version) {
      return 'unchanged';
    }
    const dueShard = dueShardOf(job.jobId, deps.config.shardCount);
    // Its occurrence is to be materialized again: not counted as materialized any more.
    return { write: { ...nextVersionOf(current, now), nextFireAt: at, dueShard, occurrenceCount: 0 } };
  });
  if (changed && after.nextFireAt !== undefined && after.nextFireAt <= now + deps.config.horizonMs) {
    await materializeOccurrences(deps, [{ ...after, nextFireAt: after.nextFireAt }], now);
  }
}

/** Creates the runs of the missed occurrences the misfire policy fires; returns those to send. */
async function createMissed(
  deps: MaterializeDeps,
  job: StoredJob,
  occurrences: number[],
  endsSchedule: boolean,
  now: number,
): Promise<Run[]> {
  const runs = occurrences.map((scheduledFor, i) =>
    newRun(job, scheduledFor, 1, now, deps.config.retentionDays, endsSchedule && i === occurrences.length - 1),
  );
  const created = await Promise.all(runs.map((run) => deps.runs.createIfAbsent(run)));
  // An existing run is one an earlier attempt of this resume created: send it again (harmless duplicate).
  return runs.filter((_, i) => created[i]?.created || created[i]?.existing.status === 'QUEUED');
}
