import { MAX_ATTEMPT_NUMBER } from '../bounds.ts';
import type { Job, Run } from '../model.ts';
import { runIdOf } from '../run-id.ts';

const DAY_MS = 86_400_000;

/** What a run is made from: its job, or an earlier attempt of the same occurrence (retries). */
export type RunSource = Pick<Job, 'tenantId' | 'jobId'> & {
  schedule?: Pick<Job['schedule'], 'type'>;
  scheduleType?: Run['scheduleType'];
  finalOccurrence?: boolean;
  triggered?: boolean;
} & Pick<Run, 'workflowRunId' | 'taskKey' | 'requestBody' | 'priority' | 'flowControl'>;

/**
 * A fresh QUEUED attempt of one occurrence, expiring (TTL) `retentionDays` after its due time. It
 * carries the schedule type of its job (or of the attempt before it), when known, whether it is
 * its schedule's final occurrence (`final`, or the attempt before it), and whether the attempt
 * before it was triggered by hand: a retry of a trigger runs while the job is paused, as the
 * trigger did.
 */
export function newRun(
  job: RunSource,
  scheduledFor: number,
  attempt: number,
  now: number,
  retentionDays: number,
  final = job.finalOccurrence === true,
): Run & { expiresAt: number } {
  // The runs table's sort key holds the attempt in three digits: a later one would sort wrong.
  if (!Number.isSafeInteger(attempt) || attempt < 1 || attempt > MAX_ATTEMPT_NUMBER)
    throw new RangeError(`attempt ${attempt} is outside 1..${MAX_ATTEMPT_NUMBER}`);
  const key = { tenantId: job.tenantId, jobId: job.jobId, scheduledFor, attempt };
  const scheduleType = job.schedule?.type ?? job.scheduleType;
  return {
    ...key,
    runId: runIdOf(key),
    status: 'QUEUED',
    createdAt: now,
    enqueuedAt: now,
    expiresAt: Math.ceil((Math.max(now, scheduledFor) + retentionDays * DAY_MS) / 1000),
    ...(scheduleType ? { scheduleType } : {}),
    ...(final ? { finalOccurrence: true } : {}),
    ...(job.triggered ? { triggered: true } : {}),
    // A workflow task's retry stays the task's, with the body its first attempt was given.
    ...(job.workflowRunId === undefined ? {} : { workflowRunId: job.workflowRunId, taskKey: job.taskKey }),
    ...(job.requestBody === undefined ? {} : { requestBody: job.requestBody }),
    // The lane and the flow-control key of the job as it is now (a retry keeps its attempt's).
    ...(job.priority === undefined || job.priority === 'normal' ? {} : { priority: job.priority }),
    ...(job.flowControl === undefined ? {} : { flowControl: job.flowControl }),
  };
}
