/**
 * Run ids are derived from what identifies the attempt, never random: materializing the same
 * occurrence twice yields the same id, which is what makes the conditional put a no-op.
 */
import type { RunKey } from './model.ts';

const RUN_ID = /^([0-9A-Za-z]+)_(\d{1,16})_(\d{1,3})$/;

/** `<jobId>_<scheduledFor ms>_<attempt>`. */
export function runIdOf(key: Pick<RunKey, 'jobId' | 'scheduledFor' | 'attempt'>): string {
  return `${key.jobId}_${key.scheduledFor}_${key.attempt}`;
}

/** The key parts of a run id, or undefined for anything that is not one. */
export function parseRunId(runId: string): Pick<RunKey, 'jobId' | 'scheduledFor' | 'attempt'> | undefined {
  const match = RUN_ID.exec(runId);
  if (!match) return undefined;
  return { jobId: match[1] as string, scheduledFor: Number(match[2]), attempt: Number(match[3]) };
}

/** The key of the tenant's run with id `runId`, or undefined for anything that is not a run id. */
export function runKeyOfId(tenantId: string, runId: string | undefined): RunKey | undefined {
  const parts = runId === undefined ? undefined : parseRunId(runId);
  return parts ? { tenantId, ...parts } : undefined;
}

/** The key that stays the same across retries and recoveries of one occurrence. */
export function idempotencyKeyOf(key: Pick<RunKey, 'jobId' | 'scheduledFor'>): string {
  return `${key.jobId}:${key.scheduledFor}`;
}
