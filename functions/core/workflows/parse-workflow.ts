/**
 * Turns a workflow request body (POST /v1/workflows, PATCH /v1/workflows/{id}) into domain values.
 * The JSON Schemas (schemas/create-workflow.json, update-workflow.json) have checked shapes; this
 * adds what they cannot say, with the job's own parsers: each task's target, retry, timeout,
 * delivery, async settings and priority are read by job-input.ts and its friends (real URLs, header safety,
 * bounds), the head's schedule, policies and onFailure as a job's, and the graph by
 * validate-workflow.ts (keys, dependencies, cycles). Every problem is reported, a task's named
 * `tasks.<index>.<its job field>` (e.g. `tasks.2.target.url`), so a client sees all of them at once.
 */

import { type AsyncSettings, parseAsyncSettings } from '../async/async-settings.ts';
import { checkBound } from '../bounds.ts';
import { type FieldProblem, ValidationError } from '../errors.ts';
import { type FlowControlSettings, parseFlowControl } from '../flow-control/flow-control-settings.ts';
import {
  type CreateJobInput,
  parseOnFailureUrl,
  parsePriority,
  parseRetry,
  parseTarget,
  storedPriority,
} from '../job-input.ts';
import { DEFAULT_TIMEOUT_SECONDS } from '../limits.ts';
import { DEFAULT_POLICIES, type Delivery, type JobPolicies, type Schedule, type Target } from '../model.ts';
import type { Priority } from '../priority.ts';
import type { RetryPolicy } from '../retry-policy.ts';
import { parseSchedule } from '../schedule/index.ts';
import { parseSecretHeaders } from '../secrets/secret-header-input.ts';
import { type OutboundRules, STRICT_OUTBOUND_RULES } from '../url-guard.ts';
import type { TaskInputMode, TriggerRule } from './model.ts';
import { MAX_WORKFLOW_TASKS } from './task-key.ts';
import { parseWorkflowGraph } from './validate-workflow.ts';

/** One task of a request body, as the schema lets it through. */
export interface WorkflowTaskRequest {
  key: string;
  target: CreateJobInput['target'];
  retry?: Partial<RetryPolicy>;
  timeoutSeconds?: number;
  delivery?: Delivery;
  async?: unknown;
  /** The task's runs' lane (core/priority.ts), default `normal`. */
  priority?: unknown;
  /** As a job's: the key whose limits the task's runs share (core/flow-control/). */
  flowControl?: unknown;
  dependsOn?: string[];
  when?: TriggerRule;
  input?: TaskInputMode;
}

export interface CreateWorkflowInput {
  name?: string;
  schedule?: Record<string, unknown>;
  misfire?: JobPolicies['misfire'];
  overlap?: JobPolicies['overlap'];
  onFailure?: { url: string };
  tasks: WorkflowTaskRequest[];
}

/** A PATCH body: any of these; `schedule: null` makes the workflow trigger-only, `onFailure: null` removes it. */
export interface UpdateWorkflowInput {
  name?: string;
  schedule?: Record<string, unknown> | null;
  misfire?: JobPolicies['misfire'];
  overlap?: JobPolicies['overlap'];
  onFailure?: { url: string } | null;
  /** The whole list again: a new version. */
  tasks?: WorkflowTaskRequest[];
}

/** One task, parsed: its place in the graph and the job fields of its item. */
export interface ParsedTask {
  key: string;
  dependsOn: string[];
  when: TriggerRule;
  input?: TaskInputMode;
  target: Target;
  retry: RetryPolicy;
  timeoutSeconds: number;
  delivery: Delivery;
  async?: AsyncSettings;
  /** The lane of the task's runs; absent is `normal`. */
  priority?: Priority;
  flowControl?: FlowControlSettings;
  /** Plaintext, kept apart so that they only reach storage sealed (the handler seals them). */
  secretHeaders?: Record<string, string>;
}

export interface NewWorkflowFields {
  name?: string;
  /** Absent: the workflow runs only when triggered. */
  schedule?: Schedule;
  policies: JobPolicies;
  onFailureUrl?: string;
  tasks: ParsedTask[];
}

/** What a PATCH changes; absent fields keep their value. */
export interface WorkflowChange {
  name?: string;
  /** A new schedule (rescheduled from now on, as a job's), or null: trigger-only from now on. */
  schedule?: Schedule | null;
  policies?: Partial<JobPolicies>;
  onFailureUrl?: string | null;
  /** A new version's tasks. */
  tasks?: ParsedTask[];
}

/** Validates and normalizes a create body; throws ValidationError listing every problem. */
export function parseCreateWorkflow(
  input: CreateWorkflowInput,
  now: number,
  rules: OutboundRules = STRICT_OUTBOUND_RULES,
): NewWorkflowFields {
  const problems: FieldProblem[] = [];
  let schedule: Schedule | undefined;
  if (input.schedule !== undefined) {
    const parsed = parseSchedule(input.schedule, now);
    if (parsed.ok) schedule = parsed.schedule;
    else problems.push(...parsed.errors);
  }
  const onFailureUrl = input.onFailure ? parseOnFailureUrl(input.onFailure.url, problems, rules) : undefined;
  const tasks = parseTasks(input.tasks, rules, problems);
  if (problems.length > 0 || !tasks) throw new ValidationError(problems);
  return {
    ...(input.name === undefined ? {} : { name: input.name }),
    ...(schedule === undefined ? {} : { schedule }),
    policies: {
      misfire: input.misfire ?? DEFAULT_POLICIES.misfire,
      overlap: input.overlap ?? DEFAULT_POLICIES.overlap,
    },
    ...(onFailureUrl === undefined ? {} : { onFailureUrl }),
    tasks,
  };
}

/** Validates and normalizes a PATCH body; throws ValidationError listing every problem (or naming an empty body). */
export function parseUpdateWorkflow(
  input: UpdateWorkflowInput,
  now: number,
  rules: OutboundRules = STRICT_OUTBOUND_RULES,
): WorkflowChange {
  const problems: FieldProblem[] = [];
  const change: WorkflowChange = {};
  if (input.name !== undefined) change.name = input.name;
  if (input.schedule === null) change.schedule = null;
  else if (input.schedule !== undefined) {
    const parsed = parseSchedule(input.schedule, now);
    if (parsed.ok) change.schedule = parsed.schedule;
    else problems.push(...parsed.errors);
  }
  if (input.misfire !== undefined || input.overlap !== undefined) {
    change.policies = {
      ...(input.misfire === undefined ? {} : { misfire: input.misfire }),
      ...(input.overlap === undefined ? {} : { overlap: input.overlap }),
    };
  }
  if (input.onFailure === null) change.onFailureUrl = null;
  else if (input.onFailure !== undefined) change.onFailureUrl = parseOnFailureUrl(input.onFailure.url, problems, rules);
  if (input.tasks !== undefined) {
    const tasks = parseTasks(input.tasks, rules, problems);
    if (tasks) change.tasks = tasks;
  }
  if (problems.length > 0) throw new ValidationError(problems);
  if (Object.keys(change).length === 0) {
    throw new ValidationError([{ field: 'body', reason: 'must change at least one field' }]);
  }
  return change;
}

/**
 * The tasks (the request's `tasks`, any value), each with its graph rules and job fields, or
 * undefined with every problem pushed: the graph's (validate-workflow.ts) and each task's own.
 */
export function parseTasks(tasks: unknown, rules: OutboundRules, problems: FieldProblem[]): ParsedTask[] | undefined {
  const graph = parseWorkflowGraph(tasks);
  if (!graph.ok) problems.push(...graph.problems);
  // Nothing per task for a value that is no list of tasks, or too long a one: the work stays bounded.
  if (!Array.isArray(tasks) || tasks.length > MAX_WORKFLOW_TASKS) return undefined;
  const list: unknown[] = tasks;
  const before = problems.length;
  const parsed = list.map((task, index) => parseTaskFields(task, `tasks.${index}`, rules, problems));
  if (!graph.ok || problems.length > before) return undefined;
  return graph.graph.map((node, index) => {
    const fields = parsed[index] as TaskFields;
    const input = (list[index] as WorkflowTaskRequest).input;
    return {
      key: node.key,
      dependsOn: [...node.dependsOn],
      when: node.when,
      ...(input === undefined ? {} : { input }),
      ...fields,
    };
  });
}

type TaskFields = Pick<
  ParsedTask,
  'target' | 'retry' | 'timeoutSeconds' | 'delivery' | 'async' | 'priority' | 'flowControl' | 'secretHeaders'
>;

/** One task's job fields, read by the job parsers; their problems pushed under `prefix`. */
function parseTaskFields(
  task: unknown,
  prefix: string,
  rules: OutboundRules,
  problems: FieldProblem[],
): TaskFields | undefined {
  // Not an object: validate-workflow.ts has named it already.
  if (task === null || typeof task !== 'object' || Array.isArray(task)) return undefined;
  const input = task as Partial<WorkflowTaskRequest>;
  const own: FieldProblem[] = [];
  const target = isObject(input.target) ? input.target : undefined;
  if (!target || typeof target.url !== 'string') own.push({ field: 'target', reason: 'is required, with a url' });
  const parsedTarget = target && typeof target.url === 'string' ? parseTarget(target, own, rules) : undefined;
  const secretHeaders = target ? parseSecretHeaders(target.secretHeaders, target.headers, own) : undefined;
  const retry = parseRetry(input.retry, own);
  checkBound('timeoutSeconds', input.timeoutSeconds, own);
  const asyncSettings = input.async === undefined ? undefined : parseAsyncSettings(input.async, own);
  const priority = parsePriority(input.priority, 'priority', own);
  const flowControl = input.flowControl === undefined ? undefined : parseFlowControl(input.flowControl);
  if (flowControl?.ok === false) own.push(...flowControl.problems);
  problems.push(...own.map(({ field, reason }) => ({ field: `${prefix}.${field}`, reason })));
  if (!parsedTarget) return undefined;
  return {
    target: parsedTarget,
    retry,
    timeoutSeconds: input.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
    delivery: input.delivery ?? 'at-least-once',
    ...(asyncSettings === undefined ? {} : { async: asyncSettings }),
    ...storedPriority(priority),
    ...(flowControl?.ok ? { flowControl: flowControl.settings } : {}),
    ...(secretHeaders === undefined ? {} : { secretHeaders }),
  };
}

function isObject(value: unknown): value is CreateJobInput['target'] {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
