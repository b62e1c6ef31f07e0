/**
 * `POST /v1/workflow-runs/{id}/cancel` (and a deleted workflow's runs): tasks not started end
 * CANCELLED at once (cancel-plan.ts), and each task in flight is soft-cancelled as a run cancel
 * would (a QUEUED run ends CANCELLED and is never called, an async call is asked to stop, a
 * synchronous call in progress ends with its call: its outcome is recorded and changes nothing).
 * The run reads CANCELLED from then on. Cancelling a CANCELLED run again repeats the soft cancels
 * (a cancel that died half-way is finished by its retry); an ended run is a 409.
 */
import { ConflictError, NotFoundError } from '../../errors.ts';
import type { RunKey } from '../../model.ts';
import { runKeyOfId } from '../../run-id.ts';
import { cancelPlan } from '../../workflows/cancel-plan.ts';
import type { WorkflowRun } from '../../workflows/stored.ts';
import { outcomeClassOf } from '../../workflows/task-outcome.ts';
import { taskRunKeyOf } from '../../workflows/task-run-id.ts';
import { graphOf, statesOf } from '../../workflows/workflow-step.ts';
import { changeWorkflowRun } from './change-workflow-run.ts';
import type { WorkflowRunDeps } from './workflow-run-deps.ts';

export const CANCELLED_WITH_RUN_REASON = 'the workflow run was cancelled';

export interface CancelWorkflowRunDeps extends WorkflowRunDeps {
  /** Soft-cancels one task run (async/cancel-run.ts requestCancel); its refusals are expected and ignored. */
  cancelTaskRun(key: RunKey): Promise<unknown>;
}

export async function cancelWorkflowRun(
  deps: CancelWorkflowRunDeps,
  tenantId: string,
  workflowRunId: string,
  now: number,
): Promise<WorkflowRun> {
  const run = await changeWorkflowRun(deps, tenantId, workflowRunId, (current) => cancelled(current, now), now);
  if (!run) throw new NotFoundError(`workflow run ${workflowRunId}`);
  await Promise.all(tasksToStop(run).map((key) => deps.cancelTaskRun(key).catch(() => undefined)));
  return run;
}

/**
 * The runs a cancel stops: each task's current run while in flight, and the first attempt of each
 * task it cancelled before it started — that run may exist already, put by a step whose writer died
 * before it could record it (start-task-runs.ts puts before the run is written); most do not, and
 * the cancel of a run that is not there is refused and ignored.
 */
function tasksToStop(run: WorkflowRun): RunKey[] {
  return run.graph.flatMap((entry): RunKey[] => {
    const state = run.tasks[entry.key];
    if (state && outcomeClassOf(state.status) === 'in_flight') {
      const key = runKeyOfId(run.tenantId, state.runId);
      return key ? [key] : [];
    }
    const cancelledBeforeStart = state?.status === 'CANCELLED' && state.runId === undefined;
    return cancelledBeforeStart ? [taskRunKeyOf(run, entry.taskJobId, run.round, 1)] : [];
  });
}

function cancelled(run: WorkflowRun, now: number): WorkflowRun | undefined {
  // Cancelled already (asked, or its tasks cancelled with a deleted workflow): the soft cancels repeat.
  if (run.cancelRequestedAt !== undefined || run.status === 'CANCELLED') return undefined;
  if (run.status !== 'RUNNING') throw new ConflictError(`workflow run ${run.workflowRunId} has ended (${run.status})`);
  const tasks = { ...run.tasks };
  for (const key of cancelPlan(graphOf(run), statesOf(run)).cancel)
    tasks[key] = { status: 'CANCELLED', skippedReason: CANCELLED_WITH_RUN_REASON, completedAt: now };
  return { ...run, tasks, cancelRequestedAt: now };
}
