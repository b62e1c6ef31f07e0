/** The API's representation of jobs and runs: ISO-8601 instants, no storage attributes. */
import type { Run, Schedule } from './model.ts';
import type { StoredJob } from './ports.ts';

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());

export interface RunView {
  runId: string;
  jobId: string;
  scheduledFor: string;
  attempt: number;
  status: Run['status'];
  createdAt: string;
  enqueuedAt: string | null;
  claimedAt: string | null;
  startedAt: string | null;
  completedAt: string | null;
  httpStatus: number | null;
  durationMs: number | null;
  error: string | null;
  errorType: string | null;
  responseExcerpt: string | null;
  recoveries: number;
}

/** A run as the API shows it. */
export function runView(run: Run): RunView {
  return {
    runId: run.runId,
    jobId: run.jobId,
    scheduledFor: iso(run.scheduledFor) as string,
    attempt: run.attempt,
    status: run.status,
    createdAt: iso(run.createdAt) as string,
    enqueuedAt: iso(run.enqueuedAt),
    claimedAt: iso(run.claimedAt),
    startedAt: iso(run.startedAt),
    completedAt: iso(run.completedAt),
    httpStatus: run.httpStatus ?? null,
    durationMs: run.durationMs ?? null,
    error: run.error ?? null,
    errorType: run.errorType ?? null,
    responseExcerpt: run.responseExcerpt ?? null,
    recoveries: run.recoveries ?? 0,
  };
}

/** A schedule as the API shows it: instants as ISO-8601, fields as they were given. */
export function scheduleView(schedule: Schedule) {
  if (schedule.type === 'once') return { type: 'once', at: iso(schedule.at) };
  const bounds = {
    startAt: iso(schedule.startAt),
    ...(schedule.endAt === undefined ? {} : { endAt: iso(schedule.endAt) }),
    ...(schedule.maxRuns === undefined ? {} : { maxRuns: schedule.maxRuns }),
  };
  if (schedule.type === 'interval') return { type: 'interval', everySeconds: schedule.everySeconds, ...bounds };
  return { type: 'cron', expression: schedule.expression, timezone: schedule.timezone, ...bounds };
}

/**
 * A job as the API shows it, with a summary of its latest run; `upcoming` (the next occurrences,
 * shown by GET /v1/jobs/{id}) only when given.
 */
export function jobView(job: StoredJob, latestRun?: Run, upcoming?: number[]) {
  return {
    jobId: job.jobId,
    ...(job.name === undefined ? {} : { name: job.name }),
    status: job.status,
    target: job.target,
    schedule: scheduleView(job.schedule),
    misfire: job.policies.misfire,
    overlap: job.policies.overlap,
    timeoutSeconds: job.timeoutSeconds,
    nextFireAt: iso(job.nextFireAt),
    ...(job.pausedAt === undefined ? {} : { pausedAt: iso(job.pausedAt) }),
    ...(upcoming === undefined ? {} : { upcoming: upcoming.map((at) => iso(at) as string) }),
    version: job.version,
    createdAt: iso(job.createdAt),
    updatedAt: iso(job.updatedAt),
    latestRun: latestRun
      ? {
          runId: latestRun.runId,
          scheduledFor: iso(latestRun.scheduledFor),
          attempt: latestRun.attempt,
          status: latestRun.status,
          httpStatus: latestRun.httpStatus ?? null,
          completedAt: iso(latestRun.completedAt),
        }
      : null,
  };
}
