/**
 * One step of a workflow run, pure: given the run as stored (with whatever event was just applied
 * to its tasks), which tasks start now, which end without a call (readiness.ts), and the run's
 * status after. The caller creates the started tasks' runs (their first attempts, keys from
 * task-run-id.ts) before it writes the run back, so the run never names a task run that does not
 * exist; racing callers compute the same runs, and the conditional put keeps one.
 */
import { runIdOf } from '../run-id.ts';
import type { TaskStates, WorkflowGraph } from './model.ts';
import { readiness } from './readiness.ts';
import type { WorkflowGraphEntry, WorkflowRun, WorkflowTaskState } from './stored.ts';
import { taskRunKeyOf } from './task-run-id.ts';
import { isWorkflowRunEnded, workflowRunStatusOf } from './workflow-run-status.ts';

export interface WorkflowStep {
  /** The run after the step (revision not bumped: the writer does that). */
  next: WorkflowRun;
  /** Tasks whose first attempt of this round starts now, in definition order. */
  start: WorkflowGraphEntry[];
  /** True when the step changed nothing: there is nothing to write. */
  unchanged: boolean;
}

export const CANCELLED_BEHIND_REASON = 'a task it depends on was cancelled';

/** The graph rules' view of a stored graph. */
export function graphOf(run: Pick<WorkflowRun, 'graph'>): WorkflowGraph {
  return run.graph.map(({ key, dependsOn, when }) => ({ key, dependsOn, when }));
}

/** Each task's status as the graph rules read it; a task without a state is PENDING. */
export function statesOf(run: Pick<WorkflowRun, 'tasks'>): TaskStates {
  return new Map(Object.entries(run.tasks).map(([key, state]) => [key, { status: state.status }]));
}

export function workflowStep(run: WorkflowRun, now: number): WorkflowStep {
  const decided = run.cancelRequestedAt === undefined ? readiness(graphOf(run), statesOf(run)) : undefined;
  const tasks: Record<string, WorkflowTaskState> = { ...run.tasks };
  const entryOf = new Map(run.graph.map((entry) => [entry.key, entry]));
  const start = (decided?.start ?? []).map((key) => entryOf.get(key) as WorkflowGraphEntry);
  for (const entry of start) {
    const runId = runIdOf(taskRunKeyOf(run, entry.taskJobId, run.round, 1));
    tasks[entry.key] = { status: 'QUEUED', runId, attempt: 1 };
  }
  for (const { key, skippedReason } of decided?.skip ?? [])
    tasks[key] = { status: 'SKIPPED', skippedReason, completedAt: now };
  for (const key of decided?.cancel ?? [])
    tasks[key] = { status: 'CANCELLED', skippedReason: CANCELLED_BEHIND_REASON, completedAt: now };
  const status = workflowRunStatusOf(graphOf(run), statesOf({ tasks }), run.cancelRequestedAt !== undefined);
  // Ended by this step (it was RUNNING before): it ends now.
  const ended = run.status === 'RUNNING' && isWorkflowRunEnded(status);
  const next: WorkflowRun = {
    ...run,
    tasks,
    status,
    ...(ended ? { completedAt: now } : {}),
  };
  const unchanged =
    start.length === 0 &&
    (decided?.skip.length ?? 0) === 0 &&
    (decided?.cancel.length ?? 0) === 0 &&
    status === run.status;
  return { next, start, unchanged };
}
