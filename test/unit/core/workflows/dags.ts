/** Hand-written workflows and a driver that plays a workflow run to its end, for the workflow tests. */
import type { TaskNode, TaskState, TaskStatus, TriggerRule, WorkflowGraph } from '#core/workflows/model';
import { readiness } from '#core/workflows/readiness';

export const node = (key: string, dependsOn: string[] = [], when: TriggerRule = 'all_succeeded'): TaskNode => ({
  key,
  dependsOn,
  when,
});

/** extract → clean, enrich → load → page-oncall (any_failed): the nightly ETL. */
export const NIGHTLY_ETL: WorkflowGraph = [
  node('extract'),
  node('clean', ['extract']),
  node('enrich', ['extract']),
  node('load', ['clean', 'enrich']),
  node('page-oncall', ['load'], 'any_failed'),
];

/** `split` fans out to `width` workers, `merge` fans in over all of them. */
export function fanOutFanIn(width: number, mergeRule: TriggerRule = 'all_succeeded'): WorkflowGraph {
  const workers = Array.from({ length: width }, (_, i) => `worker-${i}`);
  return [node('split'), ...workers.map((key) => node(key, ['split'])), node('merge', workers, mergeRule)];
}

export const states = (entries: Record<string, TaskStatus>): Map<string, TaskState> =>
  new Map(Object.entries(entries).map(([key, status]) => [key, { status }]));

export interface Played {
  /** Every task's final status. */
  final: Map<string, TaskStatus>;
  /** Keys in the order their runs started (each at most once if the rules are right). */
  started: string[];
  /** For each started task, the statuses of its dependencies at the moment it started. */
  dependenciesAtStart: Map<string, TaskStatus[]>;
  skippedReasons: Map<string, string>;
  steps: number;
}

/**
 * Plays a workflow run: applies readiness, then ends the in-flight task `pickNext` chooses with
 * `outcomeOf(key)`, again and again, until nothing is in flight and readiness has nothing to do.
 * Gives up after `maxSteps` (a run that never settles is what the tests look for).
 */
export function play(
  graph: WorkflowGraph,
  outcomeOf: (key: string) => TaskStatus,
  pickNext: (inFlight: string[]) => number = () => 0,
  initial: Map<string, TaskState> = new Map(),
  maxSteps = 10_000,
): Played {
  const current = new Map(initial);
  const started: string[] = [];
  const dependenciesAtStart = new Map<string, TaskStatus[]>();
  const skippedReasons = new Map<string, string>();
  const statusOf = (key: string): TaskStatus => current.get(key)?.status ?? 'PENDING';
  let steps = 0;
  for (; steps < maxSteps; steps++) {
    const next = readiness(graph, current);
    // Skips first: a task may start in the same step as the skip of one of its dependencies.
    for (const { key, skippedReason } of next.skip) {
      skippedReasons.set(key, skippedReason);
      current.set(key, { status: 'SKIPPED' });
    }
    for (const key of next.cancel) current.set(key, { status: 'CANCELLED' });
    for (const key of next.start) {
      const task = graph.find((t) => t.key === key);
      dependenciesAtStart.set(key, (task?.dependsOn ?? []).map(statusOf));
      started.push(key);
      current.set(key, { status: 'RUNNING' });
    }
    const inFlight = graph.map((t) => t.key).filter((key) => ['QUEUED', 'RUNNING'].includes(statusOf(key)));
    if (inFlight.length === 0) break;
    const key = inFlight[pickNext(inFlight) % inFlight.length] as string;
    current.set(key, { status: outcomeOf(key) });
  }
  return {
    final: new Map(graph.map((t) => [t.key, statusOf(t.key)])),
    started,
    dependenciesAtStart,
    skippedReasons,
    steps,
  };
}
