/**
 * `POST /v1/workflow-runs/{id}/retry`: a new round (retry-plan.ts) in which the failed tasks and
 * everything downstream of them that did not succeed run again; succeeded tasks are not called
 * again. The reset tasks are PENDING again and the step starts those whose dependencies allow it.
 * Refused (409) while a task is still going, when nothing failed, for a cancelled run, and past
 * the last round. Two retries at once: the second finds the run RUNNING again, and is refused.
 */
import { ConflictError, NotFoundError } from '../../errors.ts';
import { retryPlan } from '../../workflows/retry-plan.ts';
import type { WorkflowRun } from '../../workflows/stored.ts';
import { graphOf, statesOf } from '../../workflows/workflow-step.ts';
import { changeWorkflowRun } from './change-workflow-run.ts';
import type { WorkflowRunDeps } from './workflow-run-deps.ts';

const REFUSALS = {
  not_ended: 'tasks are still going',
  nothing_failed: 'no task failed',
  rounds_exhausted: 'the run was retried as often as it can be',
} as const;

export async function retryWorkflowRun(
  deps: WorkflowRunDeps,
  tenantId: string,
  workflowRunId: string,
  now: number,
): Promise<WorkflowRun> {
  const run = await changeWorkflowRun(deps, tenantId, workflowRunId, retried, now);
  if (!run) throw new NotFoundError(`workflow run ${workflowRunId}`);
  return run;
}

function retried(run: WorkflowRun): WorkflowRun {
  if (run.cancelRequestedAt !== undefined)
    throw new ConflictError(`workflow run ${run.workflowRunId} was cancelled; trigger the workflow again instead`);
  const plan = retryPlan(graphOf(run), statesOf(run), run.round);
  if (!plan.ok) {
    const tasks = plan.tasks.length > 0 ? ` (${plan.tasks.join(', ')})` : '';
    throw new ConflictError(`workflow run ${run.workflowRunId} cannot be retried: ${REFUSALS[plan.reason]}${tasks}`);
  }
  const tasks = { ...run.tasks };
  for (const key of plan.reset) delete tasks[key];
  const { completedAt: _, ...rest } = run;
  return { ...rest, round: plan.round, tasks, status: 'RUNNING' };
}
