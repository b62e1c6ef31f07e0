/**
 * The shape of a workflow as the pure workflow rules see it: tasks (keys) and the edges between
 * them, with each task's trigger rule. The HTTP-facing fields of a task (target, retry, timeout,
 * delivery) are a job's and are parsed by job-input.ts; nothing here depends on them, so the graph
 * rules can be checked (and property-tested) on their own.
 */
import type { RunStatus } from '../run-state.ts';

/**
 * When a task may start, judged on its dependencies once they have ended (trigger-rule.ts):
 * - `all_succeeded` (default): every dependency SUCCEEDED;
 * - `all_done`: every dependency ended, whatever its outcome;
 * - `any_failed`: at least one dependency failed (or was skipped because of a failure upstream).
 */
export const TRIGGER_RULES = ['all_succeeded', 'all_done', 'any_failed'] as const;
export type TriggerRule = (typeof TRIGGER_RULES)[number];
export const DEFAULT_TRIGGER_RULE: TriggerRule = 'all_succeeded';

/** `upstream`: the task's request body carries its dependencies' results (upstream-input.ts). */
export const TASK_INPUT_MODES = ['upstream'] as const;
export type TaskInputMode = (typeof TASK_INPUT_MODES)[number];

/** One node of a validated workflow: its key, the keys it waits for, and its rule. */
export interface TaskNode {
  key: string;
  dependsOn: readonly string[];
  when: TriggerRule;
}

/** The tasks of one workflow version, in the order the definition lists them. */
export type WorkflowGraph = readonly TaskNode[];

/**
 * Where one task of a workflow run stands: PENDING before its run exists, then the status of its
 * latest run attempt. An attempt that failed but will be retried by its retry policy is not an
 * end: the adapter reports it as QUEUED (its next attempt), never as FAILED.
 */
export type TaskStatus = 'PENDING' | RunStatus;

/** The state of one task in a workflow run, as far as the rules go. */
export interface TaskState {
  status: TaskStatus;
}

/** Every task's state in one workflow run, by key; a task missing here is PENDING. */
export type TaskStates = ReadonlyMap<string, TaskState>;
