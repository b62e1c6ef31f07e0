/**
 * Reading workflow runs for the API. A run's item knows each task's state as of its last change;
 * a task in flight is read from its current run as well, so the answer shows RUNNING (and when it
 * started) rather than the QUEUED it was created with. One bad task run read leaves that task as
 * the item has it: it must not fail the whole answer.
 */
import { NotFoundError } from '../../errors.ts';
import type { Run } from '../../model.ts';
import type { Page, RunRepository } from '../../ports.ts';
import { runKeyOfId } from '../../run-id.ts';
import type { WorkflowRepository, WorkflowRunStore } from '../../workflows/ports.ts';
import type { WorkflowRun } from '../../workflows/stored.ts';
import { outcomeClassOf } from '../../workflows/task-outcome.ts';
import { parseWorkflowRunId } from '../../workflows/task-run-id.ts';
import { isWorkflowId } from '../../workflows/workflow-ids.ts';

export interface ReadWorkflowRunDeps {
  workflowRuns: Pick<WorkflowRunStore, 'get' | 'listByWorkflow'>;
  runs: Pick<RunRepository, 'get'>;
}

/** The run and the current runs of its tasks in flight, by task key. */
export async function getWorkflowRun(
  deps: ReadWorkflowRunDeps,
  tenantId: string,
  workflowRunId: string,
): Promise<{ run: WorkflowRun; live: Map<string, Run> }> {
  const parts = parseWorkflowRunId(workflowRunId);
  if (!parts || !isWorkflowId(parts.workflowId)) throw new NotFoundError(`workflow run ${workflowRunId}`);
  const run = await deps.workflowRuns.get(tenantId, workflowRunId);
  if (!run) throw new NotFoundError(`workflow run ${workflowRunId}`);
  const live = new Map<string, Run>();
  await Promise.all(
    Object.entries(run.tasks).map(async ([taskKey, state]) => {
      if (outcomeClassOf(state.status) !== 'in_flight') return;
      const runKey = runKeyOfId(tenantId, state.runId);
      const taskRun = runKey ? await deps.runs.get(runKey).catch(() => undefined) : undefined;
      if (taskRun) live.set(taskKey, taskRun);
    }),
  );
  return { run, live };
}

/** A workflow's runs, newest first; 404 for a workflow the tenant does not have. */
export async function listWorkflowRuns(
  deps: { workflowRuns: Pick<WorkflowRunStore, 'listByWorkflow'>; workflows: Pick<WorkflowRepository, 'get'> },
  tenantId: string,
  workflowId: string,
  options: { limit: number; cursor?: string },
): Promise<Page<WorkflowRun>> {
  if (!isWorkflowId(workflowId) || !(await deps.workflows.get(tenantId, workflowId)))
    throw new NotFoundError(`workflow ${workflowId}`);
  return deps.workflowRuns.listByWorkflow(tenantId, workflowId, options);
}
