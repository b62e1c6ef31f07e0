/**
 * Which ended tasks carry a failure to their dependents. A failed task does; so does a task
 * skipped because a failure upstream left its rule unable to hold — that is what lets an
 * `any_failed` task behind it (e.g. `page-oncall` after `load`, skipped when `enrich` failed)
 * still run. A task skipped only because nothing failed (an `any_failed` task with nothing to
 * react to) carries none.
 *
 * It is derived from the states, never stored: every skip the rules make is decided from ended
 * dependencies, whose statuses never change until a retry resets them and everything after them,
 * so the derivation gives the same answer at every later look.
 */
import type { TaskStates, WorkflowGraph } from './model.ts';
import { isFailure } from './task-outcome.ts';

/**
 * The keys of the tasks that carry a failure: every FAILED, TIMED_OUT or DEAD_LETTERED task, and
 * every SKIPPED task with a dependency that carries one. Computed as a fixpoint (no recursion), so
 * any graph, even a cyclic one, gives an answer.
 */
export function failureCarriers(graph: WorkflowGraph, states: TaskStates): Set<string> {
  const carriers = new Set<string>();
  for (const task of graph) if (isFailure(states.get(task.key)?.status ?? 'PENDING')) carriers.add(task.key);
  let grew = true;
  while (grew) {
    grew = false;
    for (const task of graph) {
      if (carriers.has(task.key) || states.get(task.key)?.status !== 'SKIPPED') continue;
      if (task.dependsOn.some((dep) => carriers.has(dep))) {
        carriers.add(task.key);
        grew = true;
      }
    }
  }
  return carriers;
}
