/**
 * The step a workflow run takes whenever one of its tasks changes (a task run ended, the run was
 * created or retried): which PENDING tasks start now, and which end without a call. Skips and
 * cancellations propagate within the one call — a task skipped here is seen as SKIPPED by its
 * own dependents at once — so the caller writes every consequence of an event together and no
 * task is left PENDING behind an ended graph. The rules for one task are trigger-rule.ts's.
 *
 * Pure and deterministic: the same definition and states always give the same lists, each in the
 * definition's order. Applying them is the caller's job, with conditional writes (a task starts
 * only from PENDING), so two callers racing on the same event start each task once.
 */
import { failureCarriers } from './failure-reach.ts';
import type { TaskState, TaskStates, WorkflowGraph } from './model.ts';
import { decideTask } from './trigger-rule.ts';

export interface SkippedTask {
  key: string;
  skippedReason: string;
}

export interface Readiness {
  /** Tasks whose rule holds: create their first run attempt now. */
  start: string[];
  /** Tasks that end SKIPPED, with the reason shown on the workflow run. */
  skip: SkippedTask[];
  /** Tasks that end CANCELLED, behind a cancelled dependency. */
  cancel: string[];
}

/** What to do with the PENDING tasks of a workflow run in `states` (a task missing there is PENDING). */
export function readiness(graph: WorkflowGraph, states: TaskStates): Readiness {
  const working = new Map<string, TaskState>(states);
  const carriers = failureCarriers(graph, states);
  const started = new Set<string>();
  const skipped = new Map<string, string>();
  const cancelled = new Set<string>();
  // Each pass decides at least one task or stops, so at most one pass per task plus one: the loop
  // ends on any graph, a cyclic one included (its cycle just waits).
  let decided = true;
  while (decided) {
    decided = false;
    for (const task of graph) {
      if ((working.get(task.key)?.status ?? 'PENDING') !== 'PENDING') continue;
      const decision = decideTask(task, working, carriers);
      if (decision.kind === 'wait') continue;
      decided = true;
      if (decision.kind === 'start') {
        started.add(task.key);
        working.set(task.key, { status: 'QUEUED' });
      } else if (decision.kind === 'skip') {
        skipped.set(task.key, decision.skippedReason);
        if (decision.carriesFailure) carriers.add(task.key);
        working.set(task.key, { status: 'SKIPPED' });
      } else {
        cancelled.add(task.key);
        working.set(task.key, { status: 'CANCELLED' });
      }
    }
  }
  // A key listed twice in a (corrupt) graph is decided once; each list keeps definition order.
  const keys = [...new Set(graph.map((task) => task.key))];
  return {
    start: keys.filter((key) => started.has(key)),
    skip: keys.filter((key) => skipped.has(key)).map((key) => ({ key, skippedReason: skipped.get(key) as string })),
    cancel: keys.filter((key) => cancelled.has(key)),
  };
}
