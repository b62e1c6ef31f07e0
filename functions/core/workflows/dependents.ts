/** The graph read the other way: from a task to the tasks that wait for it. */
import type { WorkflowGraph } from './model.ts';

/** Every key's direct dependents, in definition order. */
export function dependentsOf(graph: WorkflowGraph): Map<string, string[]> {
  const dependents = new Map<string, string[]>(graph.map((task) => [task.key, []]));
  for (const task of graph) {
    for (const dep of task.dependsOn) dependents.get(dep)?.push(task.key);
  }
  return dependents;
}

/** `from` and every task downstream of them (transitively), without repeats; any graph, cyclic too. */
export function downstreamOf(graph: WorkflowGraph, from: Iterable<string>): Set<string> {
  const dependents = dependentsOf(graph);
  const reached = new Set<string>();
  const queue = [...from];
  while (queue.length > 0) {
    const key = queue.pop() as string;
    if (reached.has(key)) continue;
    reached.add(key);
    queue.push(...(dependents.get(key) ?? []));
  }
  return reached;
}
