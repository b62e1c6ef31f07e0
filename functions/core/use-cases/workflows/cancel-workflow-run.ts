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
import { parseRunId } from '../../run-id.ts';
import { cancelPlan } from '../../workflows/cancel-plan.ts';
import type { WorkflowRun } from '../../workflows/stored.ts';
import { outcomeClassOf } from '../../workflows/task-outcome.ts';
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
  const inFlight = Object.values(run.tasks).filter((state) => outcomeClassOf(state.status) === 'in_flight');
  await Promise.all(
    inFlight.map(async (state) => {
      const parts = state.runId === undefined ? undefined : parseRunId(state.runId);
      if (parts) await deps.cancelTaskRun({ tenantId, ...parts }).catch(() => undefined);
    }),
  );
  return run;
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
