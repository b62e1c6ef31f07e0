/**
 * The status of a workflow run, read off its tasks. It is derived, not kept as a second truth:
 * the stored status of a WorkflowRun item is this function's answer written with the task change
 * that caused it.
 */
import type { TaskStates, WorkflowGraph } from './model.ts';
import { hasEnded, isFailure } from './task-outcome.ts';

export const WORKFLOW_RUN_STATUSES = ['RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'] as const;
export type WorkflowRunStatus = (typeof WORKFLOW_RUN_STATUSES)[number];

/**
 * - CANCELLED once a cancel was requested (at once: tasks still in flight end on their own, their
 *   outcomes are recorded but change nothing);
 * - RUNNING while any task has not ended (PENDING, QUEUED, RUNNING);
 * - FAILED when every task ended and one of them FAILED, TIMED_OUT or was DEAD_LETTERED;
 * - CANCELLED when every task ended, none failed, and one was CANCELLED (a part that never ran is
 *   no success);
 * - SUCCEEDED otherwise: tasks SKIPPED by their rule are fine.
 */
export function workflowRunStatusOf(
  graph: WorkflowGraph,
  states: TaskStates,
  cancelRequested = false,
): WorkflowRunStatus {
  if (cancelRequested) return 'CANCELLED';
  const statuses = graph.map((task) => states.get(task.key)?.status ?? 'PENDING');
  if (!statuses.every(hasEnded)) return 'RUNNING';
  if (statuses.some(isFailure)) return 'FAILED';
  if (statuses.includes('CANCELLED')) return 'CANCELLED';
  return 'SUCCEEDED';
}

/** True for every status but RUNNING: the workflow run will not change on its own any more. */
export function isWorkflowRunEnded(status: WorkflowRunStatus): boolean {
  return status !== 'RUNNING';
}
