/**
 * Checks the graph of a workflow definition: what a JSON Schema cannot say (keys unique, every
 * dependency names a task, no cycles, a task to start from) plus the shapes again, so a caller
 * that skips the schema still cannot store a graph the run rules would choke on. Every problem
 * found is reported, named like the schema's (`tasks.2.dependsOn.0`, the dotted form
 * handlers/api/ajv-problems.ts gives), in the codebase's `{ field, reason }` style.
 *
 * The target, retry, timeout and delivery of each task are a job's and are checked by
 * job-input.ts; this file only decides whether the tasks form a graph Chronos can run.
 */
import type { FieldProblem } from '../errors.ts';
import { describeCycle, findCycle } from './find-cycle.ts';
import {
  DEFAULT_TRIGGER_RULE,
  TASK_INPUT_MODES,
  type TaskInputMode,
  type TaskNode,
  TRIGGER_RULES,
  type TriggerRule,
  type WorkflowGraph,
} from './model.ts';
import { isTaskKey, MAX_WORKFLOW_TASKS, RESERVED_TASK_KEYS } from './task-key.ts';

/** A task of the request as far as the graph goes; its other fields are ignored here. */
export interface WorkflowTaskInput {
  key: string;
  dependsOn?: readonly string[];
  when?: TriggerRule;
  input?: TaskInputMode;
}

export type WorkflowGraphResult = { ok: true; graph: WorkflowGraph } | { ok: false; problems: FieldProblem[] };

const oneOf = (values: readonly string[]) => `must be one of ${values.join(', ')}`;

/**
 * The graph of `tasks` (the request's `tasks` array, any value) with each rule's default filled
 * in, or every problem found: 1..MAX_WORKFLOW_TASKS tasks, keys unique and 1–64 of
 * `[A-Za-z0-9_-]`, each dependency a known other task listed once, at least one task without
 * dependencies, `any_failed` only on a task with dependencies, and no cycle (the problem names
 * the tasks of one, in order).
 */
export function parseWorkflowGraph(tasks: unknown): WorkflowGraphResult {
  if (!Array.isArray(tasks)) return fail('tasks', 'must be an array of tasks');
  if (tasks.length === 0) return fail('tasks', 'must hold at least one task');
  // Checked before looking at any task, so the work below stays bounded whatever was sent.
  if (tasks.length > MAX_WORKFLOW_TASKS) return fail('tasks', `must hold at most ${MAX_WORKFLOW_TASKS} tasks`);

  const problems: FieldProblem[] = [];
  const keys = taskKeys(tasks, problems);
  const firstIndexOf = new Map<string, number>();
  keys.forEach((key, index) => {
    if (key !== undefined && !firstIndexOf.has(key)) firstIndexOf.set(key, index);
  });
  const graph: TaskNode[] = tasks.map((task, index) => {
    const key = keys[index] ?? '';
    const fields = isObject(task) ? task : {};
    const dependsOn = dependencies(fields.dependsOn, `tasks.${index}.dependsOn`, key, firstIndexOf, problems);
    const when = fields.when ?? DEFAULT_TRIGGER_RULE;
    if (!(TRIGGER_RULES as readonly unknown[]).includes(when))
      problems.push(problem(index, 'when', oneOf(TRIGGER_RULES)));
    // Without dependencies nothing could fail before it: the task would always be skipped.
    if (when === 'any_failed' && !listsDependencies(task))
      problems.push(problem(index, 'when', 'any_failed needs at least one dependency'));
    if (fields.input !== undefined && !(TASK_INPUT_MODES as readonly unknown[]).includes(fields.input))
      problems.push(problem(index, 'input', oneOf(TASK_INPUT_MODES)));
    return { key, dependsOn, when: when as TriggerRule };
  });

  if (!tasks.some((task) => isObject(task) && !listsDependencies(task)))
    problems.push({ field: 'tasks', reason: 'must hold at least one task without dependencies' });
  const cycle = cycleProblem(tasks, graph, firstIndexOf);
  if (cycle) problems.push(cycle);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, graph };
}

/** Each task's key, or undefined where it is missing, malformed or a repeat; problems pushed. */
function taskKeys(tasks: readonly unknown[], problems: FieldProblem[]): (string | undefined)[] {
  const seen = new Map<string, number>();
  return tasks.map((task, index) => {
    if (!isObject(task)) {
      problems.push({ field: `tasks.${index}`, reason: 'must be an object' });
      return undefined;
    }
    const key = task.key;
    if (key === undefined) return void problems.push(problem(index, 'key', 'is required'));
    if (typeof key === 'string' && RESERVED_TASK_KEYS.includes(key))
      return void problems.push(problem(index, 'key', 'is reserved'));
    if (!isTaskKey(key)) return void problems.push(problem(index, 'key', 'must be 1 to 64 letters, digits, _ or -'));
    const earlier = seen.get(key);
    if (earlier !== undefined) return void problems.push(problem(index, 'key', `repeats the key of tasks.${earlier}`));
    seen.set(key, index);
    return key;
  });
}

/** The valid entries of one task's `dependsOn`, in the order listed; a problem for each other entry. */
function dependencies(
  value: unknown,
  field: string,
  self: string,
  known: ReadonlyMap<string, number>,
  problems: FieldProblem[],
): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    problems.push({ field, reason: 'must be an array of task keys' });
    return [];
  }
  // A task can wait for every other task at most: longer lists hold a repeat or an unknown key.
  if (value.length >= MAX_WORKFLOW_TASKS) {
    problems.push({ field, reason: `must list at most ${MAX_WORKFLOW_TASKS - 1} tasks` });
    return [];
  }
  const kept: string[] = [];
  const seen = new Map<string, number>();
  for (const [index, dep] of value.entries()) {
    const at = `${field}.${index}`;
    const earlier = typeof dep === 'string' ? seen.get(dep) : undefined;
    if (typeof dep !== 'string') problems.push({ field: at, reason: 'must be a task key' });
    else if (earlier !== undefined) problems.push({ field: at, reason: `repeats ${field}.${earlier}` });
    else if (dep === self) problems.push({ field: at, reason: 'names the task itself' });
    else if (!known.has(dep))
      problems.push({ field: at, reason: `names no task of this workflow (${printable(dep)})` });
    else kept.push(dep);
    if (typeof dep === 'string' && earlier === undefined) seen.set(dep, index);
  }
  return kept;
}

/** The problem naming one cycle, on the `dependsOn` entry of its first task that closes it. */
function cycleProblem(
  tasks: readonly unknown[],
  graph: WorkflowGraph,
  firstIndexOf: ReadonlyMap<string, number>,
): FieldProblem | undefined {
  // Repeated keys are already refused; the graph of their first occurrences is the one searched.
  const order = [...firstIndexOf.keys()];
  const edges = new Map(order.map((key) => [key, graph[firstIndexOf.get(key) as number]?.dependsOn ?? []]));
  const cycle = findCycle(order, edges);
  if (!cycle) return undefined;
  const first = cycle[0] as string;
  const closing = cycle[cycle.length - 1] as string;
  const index = firstIndexOf.get(first) as number;
  // Named as sent: the entry's index in the request, where invalid entries still count.
  const sent = (tasks[index] as { dependsOn: unknown[] }).dependsOn;
  const entry = sent.indexOf(closing);
  return {
    field: `tasks.${index}.dependsOn${entry === -1 ? '' : `.${entry}`}`,
    reason: `forms a cycle: ${describeCycle(cycle)}`,
  };
}

/** An unknown dependency as it may be echoed: cut short, so a huge string does not fill the answer. */
function printable(value: string): string {
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}

const problem = (index: number, name: string, reason: string): FieldProblem => ({
  field: `tasks.${index}.${name}`,
  reason,
});
const fail = (field: string, reason: string): WorkflowGraphResult => ({ ok: false, problems: [{ field, reason }] });

/** True when the task (as sent) lists any dependency, valid or not. */
function listsDependencies(task: unknown): boolean {
  const dependsOn = isObject(task) ? task.dependsOn : undefined;
  return dependsOn !== undefined && (!Array.isArray(dependsOn) || dependsOn.length > 0);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
