/**
 * The workflow run as the API answers it (GET /v1/workflow-runs/{id}, and without its tasks in
 * GET /v1/workflows/{id}/runs): times as ISO strings, absent values null, tasks in definition
 * order. A task in flight shows its current run's status and start when that run was read (`live`).
 */
import type { Run } from '../model.ts';
import { iso } from '../views.ts';
import type { TaskStatus } from './model.ts';
import type { WorkflowRun, WorkflowTaskState } from './stored.ts';

function headOf(run: WorkflowRun) {
  return {
    workflowRunId: run.workflowRunId,
    workflowId: run.workflowId,
    name: run.name ?? null,
    status: run.status,
    version: run.version,
    round: run.round,
    scheduledFor: iso(run.scheduledFor),
    startedAt: iso(run.startedAt),
    completedAt: iso(run.completedAt),
    cancelRequestedAt: iso(run.cancelRequestedAt),
    triggered: run.triggered === true,
  };
}

/** The task's state, with what its current run says while it is in flight. */
function taskStateOf(state: WorkflowTaskState | undefined, live: Run | undefined) {
  const status: TaskStatus =
    live && live.runId === state?.runId && live.status === 'RUNNING' ? 'RUNNING' : (state?.status ?? 'PENDING');
  const startedAt = state?.startedAt ?? (live?.runId === state?.runId ? live?.startedAt : undefined);
  return {
    status,
    runId: state?.runId ?? null,
    attempt: state?.attempt ?? null,
    startedAt: iso(startedAt),
    completedAt: iso(state?.completedAt),
    httpStatus: state?.httpStatus ?? null,
    errorType: state?.errorType ?? null,
    skippedReason: state?.skippedReason ?? null,
  };
}

export function workflowRunView(run: WorkflowRun, live: ReadonlyMap<string, Run> = new Map()) {
  return {
    ...headOf(run),
    tasks: run.graph.map((entry) => ({
      key: entry.key,
      dependsOn: entry.dependsOn,
      when: entry.when,
      ...taskStateOf(run.tasks[entry.key], live.get(entry.key)),
    })),
  };
}

/** A run in a listing: no tasks, how many stand at each status. */
export function workflowRunSummaryView(run: WorkflowRun) {
  const taskCounts: Partial<Record<TaskStatus, number>> = {};
  for (const entry of run.graph) {
    const status = run.tasks[entry.key]?.status ?? 'PENDING';
    taskCounts[status] = (taskCounts[status] ?? 0) + 1;
  }
  return { ...headOf(run), taskCounts };
}
