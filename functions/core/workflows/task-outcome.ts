/**
 * How a task's status counts for its dependents and for the workflow run. Run statuses are a
 * run's; this folds them into the few classes the trigger rules and the run status need.
 */
import type { TaskStatus } from './model.ts';

/**
 * - `waiting`: not started (PENDING); `in_flight`: started, not ended (QUEUED, RUNNING);
 * - `succeeded`: SUCCEEDED;
 * - `failed`: FAILED, TIMED_OUT, DEAD_LETTERED — the outcomes that make a workflow run FAILED;
 * - `skipped`: SKIPPED (by its rule, or a run skipped on its own);
 * - `cancelled`: CANCELLED (the workflow run was cancelled).
 */
export type OutcomeClass = 'waiting' | 'in_flight' | 'succeeded' | 'failed' | 'skipped' | 'cancelled';

/** The statuses that count as a failure: a workflow run with one of them ends FAILED. */
export const FAILURE_STATUSES = ['FAILED', 'TIMED_OUT', 'DEAD_LETTERED'] as const satisfies readonly TaskStatus[];

const CLASS_OF: Record<TaskStatus, OutcomeClass> = {
  PENDING: 'waiting',
  QUEUED: 'in_flight',
  RUNNING: 'in_flight',
  SUCCEEDED: 'succeeded',
  FAILED: 'failed',
  TIMED_OUT: 'failed',
  DEAD_LETTERED: 'failed',
  SKIPPED: 'skipped',
  CANCELLED: 'cancelled',
};

/** The class of `status`. */
export function outcomeClassOf(status: TaskStatus): OutcomeClass {
  return CLASS_OF[status];
}

/** True once a task never changes again on its own (only a workflow-run retry resets it). */
export function hasEnded(status: TaskStatus): boolean {
  const outcome = CLASS_OF[status];
  return outcome !== 'waiting' && outcome !== 'in_flight';
}

/** True for FAILED, TIMED_OUT and DEAD_LETTERED. */
export function isFailure(status: TaskStatus): boolean {
  return CLASS_OF[status] === 'failed';
}
