/**
 * Creates a job. The job is written with its first occurrence in the due-index first, so that it
 * can never be lost: if it is due within the scan horizon it is then materialized at once (no
 * waiting for the next scan), and should that fail half-way, the scanner finishes the work.
 * The answer is the job as that materialization left it, computed rather than read back. A
 * schedule with no occurrence from now on (a window already over) is refused (400), not stored.
 */
import { dueShardOf } from '../due-shard.ts';
import { requireFirstFireAt } from '../first-occurrence.ts';
import type { NewJobFields } from '../job-input.ts';
import type { Job } from '../model.ts';
import type { IdGenerator } from '../ports.ts';
import { type AdvancedJob, type MaterializeDeps, materializeOccurrences } from './materialize-occurrences.ts';

export interface CreateJobDeps extends MaterializeDeps {
  ids: IdGenerator;
}

/**
 * Stores a validated job for `tenantId`, and materializes it if it is due soon. `jobId` is the id
 * an Idempotency-Key bound (create-job-once.ts); without it a new id is drawn. A job with that id
 * already stored throws JobExistsError before anything else is written.
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
  await deps.jobs.create(job);
  await deps.jobCounts?.shift(tenantId, undefined, 'ACTIVE');

  if (nextFireAt > now + deps.config.horizonMs) return job;
  const dueJob = { ...job, nextFireAt };
  const { advanced } = await materializeOccurrences(deps, [dueJob], now);
  const [moved] = advanced;
  // Our own advance succeeded: the stored job is exactly this, no read back needed. Otherwise a
  // racing scanner moved it first, and only a read tells what it looks like now.
  if (moved) return advancedJob(job, moved, now);
  return (await deps.jobs.get(tenantId, jobId)) ?? job;
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
