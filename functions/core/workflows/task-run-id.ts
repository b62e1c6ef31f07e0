/**
 * Workflow run ids and the keys of task runs, derived like run ids (run-id.ts) from what
 * identifies them, never random. Two parents ending at the same instant, a redelivered stream
 * batch or a completion handler killed mid-batch all compute the same key for the child's run, so
 * a conditional put (attribute_not_exists) lets exactly one of them create it: the child's
 * identity does not depend on which parent's end started it.
 *
 * A task run is an ordinary run of its version's task item (stored.ts): run id
 * `<taskJobId>_<scheduledFor>_<attempt>`, with `scheduledFor` the workflow run's occurrence plus
 * its round in milliseconds (0, then one more per retry of the workflow run, retry-plan.ts). So a
 * round's attempts count from 1 again, each task getting its full retry policy, and its
 * Idempotency-Key (`<jobId>:<scheduledFor>`, the same for every attempt of the round) is new in a
 * new round: a workflow-run retry is the tenant asking for the call again.
 */
import type { RunKey } from '../model.ts';

export interface WorkflowRunKey {
  workflowId: string;
  scheduledFor: number;
}

const WORKFLOW_RUN_ID = /^([0-9A-Za-z]+)_(\d{1,16})$/;

/** `<workflowId>_<scheduledFor ms>`: one workflow run per occurrence (or trigger instant). */
export function workflowRunIdOf(key: WorkflowRunKey): string {
  return `${key.workflowId}_${key.scheduledFor}`;
}

/** The key parts of a workflow run id, or undefined for anything that is not one. */
export function parseWorkflowRunId(id: string): WorkflowRunKey | undefined {
  const match = WORKFLOW_RUN_ID.exec(id);
  if (!match) return undefined;
  const scheduledFor = Number(match[2]);
  return Number.isSafeInteger(scheduledFor) ? { workflowId: match[1] as string, scheduledFor } : undefined;
}

/** The run key of `attempt` of a task (its task item `taskJobId`) in `round` of a workflow run. */
export function taskRunKeyOf(
  workflowRun: { tenantId: string; scheduledFor: number },
  taskJobId: string,
  round: number,
  attempt: number,
): RunKey {
  return { tenantId: workflowRun.tenantId, jobId: taskJobId, scheduledFor: workflowRun.scheduledFor + round, attempt };
}

/** The round a task run belongs to, from its occurrence and its workflow run's. */
export function roundOfTaskRun(workflowRunScheduledFor: number, taskRunScheduledFor: number): number {
  return taskRunScheduledFor - workflowRunScheduledFor;
}
