/**
 * What `POST /v1/workflow-runs/{id}/cancel` does to the tasks: those not started end CANCELLED at
 * once (no run exists to stop), those in flight are soft-cancelled like a cancelled job's runs (a
 * QUEUED run is not called, a RUNNING call finishes and its outcome is recorded). Ended tasks keep
 * their outcome. With every PENDING task cancelled, readiness.ts has nothing left to start, and
 * the workflow run reads CANCELLED (workflow-run-status.ts).
 */
import type { TaskStates, WorkflowGraph } from './model.ts';
import { outcomeClassOf } from './task-outcome.ts';

export interface CancelPlan {
  /** PENDING tasks: set to CANCELLED. */
  cancel: string[];
  /** QUEUED and RUNNING tasks: cancel their current run the way a job's runs are cancelled. */
  softCancel: string[];
}

/** The tasks to cancel and to soft-cancel, each in definition order. */
export function cancelPlan(graph: WorkflowGraph, states: TaskStates): CancelPlan {
  const keys = [...new Set(graph.map((task) => task.key))];
  const classOf = (key: string) => outcomeClassOf(states.get(key)?.status ?? 'PENDING');
  return {
    cancel: keys.filter((key) => classOf(key) === 'waiting'),
    softCancel: keys.filter((key) => classOf(key) === 'in_flight'),
  };
}
