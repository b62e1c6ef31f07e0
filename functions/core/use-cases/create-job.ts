/**
 * Creates a job. The job is written with its first occurrence in the due-index first, so that it
 * can never be lost: if it is due within the scan horizon it is then materialized at once (no
 * waiting for the next scan), and should that fail half-way, the scanner finishes the work.
 * The answer is the job as that materialization left it, computed rather than read back. A
 * schedule with no occurrence from now on (a window already over) is refused (400), not stored.
 *
 * A one-time job due within the horizon (every run-now job) skips the due-index: its run is put
 * first, with its own sweep-index entry, then the job is written already past its only occurrence,
 * then the run is sent. That saves three writes (the due-index entry, the advance and the entry's
 * removal) and cannot lose the run: should the create die after the put, the sweep sends the run
 * after the grace, and the executor, finding no job, ends it CANCELLED; should it die after the
 * job's write, the sweep sends the run. A retried create (same Idempotency-Key, so the same job id)
 * finds its run again; one whose `at` was "now" makes a new occurrence, and the executor skips the
 * old run as superseded (execute-run.ts), so the target is called once.
 */
import { dueShardOf } from '../due-shard.ts';
import { requireFirstFireAt } from '../first-occurrence.ts';
import type { NewJobFields } from '../job-input.ts';
import type { Job } from '../model.ts';
import type { IdGenerator } from '../ports.ts';
import { dispatchRequestOf, sendRuns } from '../runs/send-runs.ts';
import type { JobAdmission } from '../tenants/admit-job.ts';
import { type AdvancedJob, type MaterializeDeps, materializeOccurrences } from './materialize-occurrences.ts';
import { newRun } from './new-run.ts';

export interface CreateJobDeps extends MaterializeDeps {
  ids: IdGenerator;
  /**
   * Present when the API admitted the job (admit-job.ts): the admission counted it `ACTIVE` in the
   * job-status counters in the write that took its create token (job-admissions.ts), so the create
   * moves none; and it is told once the job is stored, after which a failure keeps the admission
   * (the job exists, its place and its count are its own).
   */
  admission?: JobAdmission;
}

/**
 * Stores a validated job for `tenantId`, and materializes it if it is due soon. `jobId` is the id
 * an Idempotency-Key bound (create-job-once.ts); without it a new id is drawn. A job with that id
 * already stored throws JobExistsError, before anything else is written (a one-time job due soon:
 * after the put of its run, which finds the earlier create's run when it is the same occurrence).
 */
export async function createJob(
  deps: CreateJobDeps,
  tenantId: string,
  fields: NewJobFields,
  now: number,
  jobId: string = deps.ids.next(now),
): Promise<Job> {
  // Refused before anything is written: a job with nothing to fire would stay ACTIVE forever.
  const nextFireAt = requireFirstFireAt(fields.schedule, now);
  const job: Job = {
    tenantId,
    jobId,
    ...fields,
    status: 'ACTIVE',
    version: 1,
    definitionVersion: 1,
    createdAt: now,
    updatedAt: now,
    occurrenceCount: 0,
    nextFireAt,
    dueShard: dueShardOf(jobId, deps.config.shardCount),
  };
  if (fields.schedule.type === 'once' && nextFireAt <= now + deps.config.horizonMs) {
    const fired = await createFired(deps, { ...job, nextFireAt }, now);
    if (fired) return fired;
  }
  await deps.jobs.create(job);
  await storedNew(deps, tenantId);

  if (nextFireAt > now + deps.config.horizonMs) return job;
  const dueJob = { ...job, nextFireAt };
  const { advanced } = await materializeOccurrences(deps, [dueJob], now);
  const [moved] = advanced;
  // Our own advance succeeded: the stored job is exactly this, no read back needed. Otherwise a
  // racing scanner moved it first, and only a read tells what it looks like now.
  if (moved) return advancedJob(job, moved, now);
  return (await deps.jobs.get(tenantId, jobId)) ?? job;
}

/**
 * Creates a one-time job due within the horizon run first (see above); the job as stored. Undefined
 * when its run already exists and is no longer QUEUED (an earlier attempt of this create died
 * after its put, and the sweep ended the run since): the due-index path then settles the
 * occurrence from that run, as the scanner does for an existing run.
 */
async function createFired(deps: CreateJobDeps, job: Job & { nextFireAt: number }, now: number) {
  const run = newRun(job, job.nextFireAt, 1, now, deps.config.retentionDays);
  const put = await deps.runs.createIfAbsent(run);
  if (!put.created && put.existing.status !== 'QUEUED') return undefined;
  const { nextFireAt: _fired, dueShard: _noDueEntry, ...rest } = job;
  const fired: Job = { ...rest, occurrenceCount: 1 };
  await deps.jobs.create(fired);
  await storedNew(deps, job.tenantId);
  // Sent only once the job is stored: an executor must never find the run before its job.
  await sendRuns(deps.dispatcher, [dispatchRequestOf(run, run.scheduledFor)]);
  return fired;
}

/** The job was just stored: its admission is told, or, without one, the job is counted `ACTIVE` here. */
export async function storedNew(deps: Pick<CreateJobDeps, 'jobCounts' | 'admission'>, tenantId: string) {
  if (deps.admission) deps.admission.stored();
  else await deps.jobCounts?.shift(tenantId, undefined, 'ACTIVE');
}

/** `job` as JobRepository.advance leaves it. */
function advancedJob(job: Job, moved: AdvancedJob, now: number): Job {
  const { nextFireAt: _previous, dueShard, ...rest } = job;
  return {
    ...rest,
    version: job.version + 1,
    occurrenceCount: job.occurrenceCount + moved.materialized,
    updatedAt: now,
    ...(moved.nextFireAt === undefined ? {} : { nextFireAt: moved.nextFireAt, ...(dueShard ? { dueShard } : {}) }),
  };
}
