/**
 * An order to list (and draw) a workflow's tasks in: every task after all of its dependencies,
 * ties broken by definition order, so the same definition always lists the same way. Readiness
 * does not need it (readiness.ts decides to a fixpoint), but views and tests read a graph in it.
 */
import { dependentsOf } from './dependents.ts';
import type { WorkflowGraph } from './model.ts';

/** Every key once, each after its dependencies; undefined when a cycle leaves tasks unordered. */
export function topologicalOrder(graph: WorkflowGraph): string[] | undefined {
  const keys = [...new Set(graph.map((task) => task.key))];
  const rank = new Map(keys.map((key, index) => [key, index]));
  // Unknown dependencies are not waited for: a validated graph has none.
  const waitingFor = new Map(keys.map((key) => [key, new Set<string>()]));
  for (const task of graph) for (const dep of task.dependsOn) if (rank.has(dep)) waitingFor.get(task.key)?.add(dep);
  const dependents = dependentsOf(graph);
  const ready = keys.filter((key) => waitingFor.get(key)?.size === 0);
  const order: string[] = [];
  while (ready.length > 0) {
    // The earliest-defined ready task goes next; graphs hold at most 100 tasks, so a scan will do.
    ready.sort((a, b) => (rank.get(a) as number) - (rank.get(b) as number));
    const key = ready.shift() as string;
    order.push(key);
    for (const next of new Set(dependents.get(key) ?? [])) {
      const waits = waitingFor.get(next);
      if (waits?.delete(key) && waits.size === 0) ready.push(next);
    }
  }
  return order.length === keys.length ? order : undefined;
}
