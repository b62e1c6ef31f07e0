/**
 * Finds one dependency cycle, so a refused workflow can name the tasks that form it instead of
 * just saying "cyclic". The search is deterministic (tasks in definition order, dependencies in
 * the order listed) so the same definition always names the same cycle, and iterative so no
 * input, however large, can exhaust the stack.
 */

/**
 * One cycle of the graph `dependsOn` (task key → the keys it waits for), in the order work would
 * flow around it — each key is needed by the next, and the last by the first — starting at the
 * key that comes first in `order`; undefined when the graph is acyclic. Keys without an entry in
 * `dependsOn` are leaves; a key depending on itself is a cycle of one.
 */
export function findCycle(
  order: readonly string[],
  dependsOn: ReadonlyMap<string, readonly string[]>,
): readonly string[] | undefined {
  const done = new Set<string>();
  for (const start of order) {
    if (done.has(start)) continue;
    // The current path of the depth-first search, each with the index of its next dependency.
    const path: { key: string; next: number }[] = [{ key: start, next: 0 }];
    const onPath = new Map<string, number>([[start, 0]]);
    while (path.length > 0) {
      const top = path[path.length - 1] as { key: string; next: number };
      const deps = dependsOn.get(top.key) ?? [];
      if (top.next >= deps.length) {
        path.pop();
        onPath.delete(top.key);
        done.add(top.key);
        continue;
      }
      const dep = deps[top.next++] as string;
      const at = onPath.get(dep);
      if (at !== undefined)
        return inFlowOrder(
          path.slice(at).map((step) => step.key),
          order,
        );
      if (done.has(dep)) continue;
      onPath.set(dep, path.length);
      path.push({ key: dep, next: 0 });
    }
  }
  return undefined;
}

/**
 * The search walks against the flow (from a task to what it waits for): reverse it, then rotate
 * it to start at the key listed first, so the message does not depend on where the search began.
 */
function inFlowOrder(againstFlow: readonly string[], order: readonly string[]): readonly string[] {
  const flow = [...againstFlow].reverse();
  const rank = (key: string) => {
    const index = order.indexOf(key);
    return index === -1 ? Number.MAX_SAFE_INTEGER : index;
  };
  let first = 0;
  for (let i = 1; i < flow.length; i++) if (rank(flow[i] as string) < rank(flow[first] as string)) first = i;
  return [...flow.slice(first), ...flow.slice(0, first)];
}

/** `a → b → c → a`: the cycle closed on its first key. */
export function describeCycle(cycle: readonly string[]): string {
  return [...cycle, cycle[0]].join(' → ');
}
