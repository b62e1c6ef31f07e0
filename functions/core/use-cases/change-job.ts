/**
 * The read-decide-write loop every job management change shares: read the tenant's job, decide
 * its next state, and write it conditioned on the (internal) version that was read. The scanner
 * advances recurring jobs (bumping that version) all the time, so a lost race is retried against
 * the fresh job a few times before the caller is told to retry (409). `decide` sees each fresh
 * job, so a precondition on the definition version (PATCH's If-Match) is checked again on every
 * attempt: a scanner advance is retried past, another client's change is refused.
 */
import { definitionVersionOf } from '../definition-version.ts';
import { ConflictError, NotFoundError } from '../errors.ts';
import type { JobRepository, StoredJob } from '../ports.ts';

/** Attempts before a change that keeps losing the race gives up. */
export const CHANGE_ATTEMPTS = 5;

/** What `decide` returns: the job to write, or `unchanged` to write nothing (idempotent calls). */
export type Decision = { write: StoredJob } | 'unchanged';

/**
 * Applies `decide` to the current job until its conditional write succeeds. `decide` throws
 * (ConflictError, ValidationError) to refuse; NotFoundError when the tenant has no such job.
 */
export async function changeJob(
  jobs: JobRepository,
  tenantId: string,
  jobId: string,
  decide: (job: StoredJob) => Decision | Promise<Decision>,
): Promise<{ before: StoredJob; after: StoredJob; changed: boolean }> {
  for (let attempt = 0; attempt < CHANGE_ATTEMPTS; attempt++) {
    const job = await jobs.get(tenantId, jobId);
    if (!job) throw new NotFoundError(`job ${jobId}`);
    const decision = await decide(job);
    if (decision === 'unchanged') return { before: job, after: job, changed: false };
    if (await jobs.replace(decision.write, job.version)) return { before: job, after: decision.write, changed: true };
  }
  throw new ConflictError(`job ${jobId} kept changing concurrently; retry`);
}

/**
 * The job with its internal version bumped and `updatedAt` set: the start of every system change
 * (bookkeeping), which leaves the definition version as it was (stored, for a job without one).
 */
export function nextVersionOf(job: StoredJob, now: number): StoredJob {
  return { ...job, version: job.version + 1, definitionVersion: definitionVersionOf(job), updatedAt: now };
}

/** As nextVersionOf, with the definition version bumped too: the start of every change a tenant makes. */
export function nextDefinitionOf(job: StoredJob, now: number): StoredJob {
  return { ...nextVersionOf(job, now), definitionVersion: definitionVersionOf(job) + 1 };
}

/** Takes the job out of the due-index (the sparse index holds only jobs carrying both keys). */
export function withoutDueEntry(job: StoredJob): StoredJob {
  const { nextFireAt: _next, dueShard: _shard, ...rest } = job;
  return rest;
}

/**
 * Drops the pause state a PAUSED job carries, and its quarantine: resume puts the job back into
 * the due-index, where the scanner judges it afresh (and quarantines it again if it still fails).
 */
export function withoutPauseState(job: StoredJob): StoredJob {
  const { pausedAt: _at, pausedNextFireAt: _next, quarantine: _quarantine, ...rest } = job;
  return rest;
}
