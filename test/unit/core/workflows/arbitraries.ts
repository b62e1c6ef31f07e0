/**
 * Random workflows for the property tests. Acyclic by construction: tasks get a hidden rank and
 * depend only on lower ranks, then are listed in a shuffled order (so the definition order is
 * not a topological one). Cyclic by adding one back edge to such a graph: a task is made to
 * depend on one of its own descendants.
 */
import fc from 'fast-check';
import type { TaskStatus, TriggerRule } from '#core/workflows/model';

export interface TaskSpec {
  key: string;
  dependsOn: string[];
  when: TriggerRule;
}

const RULES: TriggerRule[] = ['all_succeeded', 'all_done', 'any_failed'];

/** A task key: the pattern's characters, without the one reserved name. */
export const taskKey = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/).filter((key) => key !== '__proto__');

/** 1..maxTasks tasks with unique keys, acyclic, in shuffled definition order. */
export function acyclicTasks(maxTasks = 25): fc.Arbitrary<TaskSpec[]> {
  return fc.uniqueArray(taskKey, { minLength: 1, maxLength: maxTasks }).chain((keys) =>
    fc
      .tuple(
        // For each task (by rank), which lower-ranked tasks it depends on and its rule.
        fc.tuple(
          ...keys.map((_, rank) =>
            fc.record({
              deps: fc.subarray(keys.slice(0, rank), { maxLength: Math.min(rank, 6) }),
              rule: fc.constantFrom(...RULES),
            }),
          ),
        ),
        fc.shuffledSubarray(
          keys.map((_, i) => i),
          { minLength: keys.length, maxLength: keys.length },
        ),
      )
      .map(([choices, order]) =>
        order.map((rank) => {
          const { deps, rule } = choices[rank] as { deps: string[]; rule: TriggerRule };
          // any_failed needs a dependency (validation refuses it on a root).
          const when = deps.length === 0 && rule === 'any_failed' ? 'all_succeeded' : rule;
          return { key: keys[rank] as string, dependsOn: deps, when };
        }),
      ),
  );
}

/** An acyclic workflow with one back edge added: some task now depends on one of its descendants. */
export function cyclicTasks(maxTasks = 25): fc.Arbitrary<TaskSpec[]> {
  return acyclicTasks(maxTasks)
    .filter((tasks) => tasks.some((task) => task.dependsOn.length > 0))
    .chain((tasks) => {
      const withDeps = tasks.filter((task) => task.dependsOn.length > 0);
      return fc.tuple(fc.constantFrom(...withDeps), fc.nat()).map(([descendant, pick]) => {
        const ancestors = ancestorsOf(tasks, descendant.key);
        const ancestor = ancestors[pick % ancestors.length] as string;
        return tasks.map((task) =>
          task.key === ancestor ? { ...task, dependsOn: [...task.dependsOn, descendant.key] } : task,
        );
      });
    });
}

/** Every task `key` depends on, directly or not. */
export function ancestorsOf(tasks: readonly TaskSpec[], key: string): string[] {
  const byKey = new Map(tasks.map((task) => [task.key, task]));
  const found = new Set<string>();
  const queue = [...(byKey.get(key)?.dependsOn ?? [])];
  while (queue.length > 0) {
    const next = queue.pop() as string;
    if (found.has(next)) continue;
    found.add(next);
    queue.push(...(byKey.get(next)?.dependsOn ?? []));
  }
  return [...found];
}

/** The outcome of a task run that runs to its end (CANCELLED only comes from a workflow cancel). */
export const RUN_OUTCOMES: TaskStatus[] = ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'DEAD_LETTERED', 'SKIPPED'];

/** A workflow and, for each task, the outcome its run will have. */
export function workflowWithOutcomes(
  outcomes: readonly TaskStatus[] = RUN_OUTCOMES,
): fc.Arbitrary<{ tasks: TaskSpec[]; outcome: Map<string, TaskStatus> }> {
  return acyclicTasks().chain((tasks) =>
    fc
      .array(fc.constantFrom(...outcomes), { minLength: tasks.length, maxLength: tasks.length })
      .map((picked) => ({ tasks, outcome: new Map(tasks.map((task, i) => [task.key, picked[i] as TaskStatus])) })),
  );
}

/** A pick function for play(): which in-flight task ends next, from a random sequence. */
export function picker(sequence: readonly number[]): (inFlight: string[]) => number {
  let at = 0;
  return (inFlight) => (sequence.length === 0 ? 0 : (sequence[at++ % sequence.length] as number) % inFlight.length);
}
