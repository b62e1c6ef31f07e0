/**
 * Task run ids, derived like run ids (run-id.ts) from what identifies the attempt, never random.
 * Two parents ending at the same instant, a redelivered stream batch or a completion handler
 * killed mid-batch all compute the same id for the child's run, so a conditional put
 * (attribute_not_exists) lets exactly one of them create it — the child's identity does not
 * depend on which parent's end started it.
 *
 * The parts, joined by `_`: the workflow run (`<workflowId>_<scheduledFor ms>`, so materializing
 * one occurrence twice yields one workflow run), the task key, the round (0, then one more per
 * retry of the workflow run, retry-plan.ts) and the attempt within the round (1.., as for a job's
 * retries, so a task's retry policy counts its attempts exactly as a job's does).
 */
import { MAX_ATTEMPT_NUMBER } from '../bounds.ts';
import { isTaskKey } from './task-key.ts';

export interface WorkflowRunKey {
  workflowId: string;
  scheduledFor: number;
}

export interface TaskRunKey {
  workflowRunId: string;
  taskKey: string;
  round: number;
  attempt: number;
}

const WORKFLOW_RUN_ID = /^([0-9A-Za-z]+)_(\d{1,16})$/;
// The task key may hold `_`; round and attempt are the last two parts, so the split is unique.
const TASK_RUN_ID = /^([0-9A-Za-z]+_\d{1,16})_([A-Za-z0-9_-]{1,64})_(\d{1,3})_(\d{1,3})$/;

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

/** `<workflowRunId>_<taskKey>_<round>_<attempt>`. */
export function taskRunIdOf(key: TaskRunKey): string {
  return `${key.workflowRunId}_${key.taskKey}_${key.round}_${key.attempt}`;
}

/** The key parts of a task run id, or undefined for anything that is not one. */
export function parseTaskRunId(id: string): TaskRunKey | undefined {
  const match = TASK_RUN_ID.exec(id);
  if (!match || parseWorkflowRunId(match[1] as string) === undefined) return undefined;
  const taskKey = match[2] as string;
  const round = Number(match[3]);
  const attempt = Number(match[4]);
  if (!isTaskKey(taskKey) || attempt < 1 || attempt > MAX_ATTEMPT_NUMBER) return undefined;
  return { workflowRunId: match[1] as string, taskKey, round, attempt };
}

/**
 * The Idempotency-Key a task's target receives: the same for every attempt of the task in one
 * round (a retried call can be deduplicated, as a job's occurrence can), new in a new round (a
 * workflow-run retry is the tenant asking for the call again).
 */
export function taskIdempotencyKeyOf(key: Omit<TaskRunKey, 'attempt'>): string {
  return `${key.workflowRunId}:${key.taskKey}:${key.round}`;
}
