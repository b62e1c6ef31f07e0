/** Tenant-scoped reads: another tenant's ids are indistinguishable from unknown ones (404). */
import { NotFoundError } from '../errors.ts';
import type { Run } from '../model.ts';
import type { JobRepository, Page, RunListQuery, RunRepository, StoredJob } from '../ports.ts';
import { occurrencesBetween, upcoming } from '../schedule/index.ts';

export interface ReadDeps {
  jobs: JobRepository;
  runs: RunRepository;
}

/** How many upcoming occurrences GET /v1/jobs/{id} shows. */
export const UPCOMING_COUNT = 5;

/**
 * The job's next occurrences after `now`, ascending, at most `count`: [] unless it is ACTIVE, not
 * quarantined, with something left to fire. Those between now and `nextFireAt` are already materialized as runs
 * (the scanner works a horizon ahead) and still upcoming; from `nextFireAt` on, the schedule
 * decides, with maxRuns counted from the occurrences materialized so far.
 */
export function upcomingOccurrences(job: StoredJob, now: number, count = UPCOMING_COUNT): number[] {
  // A quarantined job fires nothing until it is rescheduled, and its schedule may not even be computable.
  if (job.status !== 'ACTIVE' || job.nextFireAt === undefined || job.quarantine !== undefined) return [];
  const nextFireAt = job.nextFireAt;
  try {
    const from = Math.max(now, nextFireAt);
    const materialized = now < nextFireAt ? occurrencesBetween(job.schedule, now + 1, nextFireAt - 1, 0, count) : [];
    return [...materialized, ...upcoming(job.schedule, from, job.occurrenceCount, count - materialized.length)];
  } catch {
    // A stored schedule that can no longer be computed (a time zone the runtime no longer knows)
    // must not turn a read into a 500: the scanner quarantines the job, with the reason, on its pass.
    return [];
  }
}

/** The job and its newest run; NotFoundError if the tenant has no such job. */
export async function getJob(
  deps: ReadDeps,
  tenantId: string,
  jobId: string,
): Promise<{ job: StoredJob; latestRun?: Run }> {
  const [job, latest] = await Promise.all([
    deps.jobs.get(tenantId, jobId),
    deps.runs.listByJob(tenantId, jobId, { limit: 1 }),
  ]);
  if (!job) throw new NotFoundError(`job ${jobId}`);
  const latestRun = latest.items[0];
  return latestRun ? { job, latestRun } : { job };
}

/**
 * A page of the job's runs, newest first, filtered, with the job (whose slaSeconds judges them);
 * NotFoundError if the tenant has no such job.
 */
export async function listRuns(
  deps: ReadDeps,
  tenantId: string,
  jobId: string,
  query: RunListQuery,
): Promise<Page<Run> & { job: StoredJob }> {
  const job = await deps.jobs.get(tenantId, jobId);
  if (!job) throw new NotFoundError(`job ${jobId}`);
  return { ...(await deps.runs.listByJob(tenantId, jobId, query)), job };
}
