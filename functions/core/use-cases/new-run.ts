import type { Job, Run } from '../model.ts';
import { runIdOf } from '../run-id.ts';

const DAY_MS = 86_400_000;

/** A fresh QUEUED attempt of one occurrence, expiring (TTL) `retentionDays` after its due time. */
export function newRun(
  job: Pick<Job, 'tenantId' | 'jobId'>,
  scheduledFor: number,
  attempt: number,
  now: number,
  retentionDays: number,
): Run & { expiresAt: number } {
  const key = { tenantId: job.tenantId, jobId: job.jobId, scheduledFor, attempt };
  return {
    ...key,
    runId: runIdOf(key),
    status: 'QUEUED',
    createdAt: now,
    enqueuedAt: now,
    expiresAt: Math.ceil((Math.max(now, scheduledFor) + retentionDays * DAY_MS) / 1000),
  };
}
