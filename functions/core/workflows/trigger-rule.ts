/**
 * What one PENDING task should do now, from its dependencies' states: wait, start, or end without
 * a call (SKIPPED by its rule, or CANCELLED after a cancelled dependency). Exact semantics:
 *
 * - A CANCELLED dependency cancels the task, whatever its rule: a cancelled workflow run starts
 *   nothing more, and an `all_done` clean-up must not wake up behind a cancellation.
 * - `all_succeeded`: starts once every dependency SUCCEEDED. Skipped as soon as one dependency
 *   carries a failure (failure-reach.ts) — it can never hold, so dependents such as an
 *   `any_failed` alarm learn of it without waiting for the other branches. Otherwise a SKIPPED
 *   dependency also makes it impossible, but the task waits for its remaining dependencies to
 *   end first: one of them may still fail, and whether this skip carries a failure must not
 *   depend on which dependency happened to end first.
 * - `all_done`: starts once every dependency ended (SUCCEEDED, failed or SKIPPED alike); never
 *   skipped. A SKIPPED dependency counts as ended.
 * - `any_failed`: waits until every dependency ended; then starts when at least one carries a
 *   failure (FAILED, TIMED_OUT, DEAD_LETTERED, or SKIPPED because of a failure upstream), and is
 *   skipped otherwise. A SKIPPED dependency that carries no failure counts as not failed.
 *
 * Only a skip may happen before every dependency ended; a start never does. With these rules the
 * final state of every task is the same in whatever order its dependencies end (a property test
 * holds it), so two completions racing each other cannot lead to different graphs.
 */
import type { TaskNode, TaskStates } from './model.ts';
import { hasEnded, outcomeClassOf } from './task-outcome.ts';

export type TaskDecision =
  | { kind: 'wait' }
  | { kind: 'start' }
  | { kind: 'skip'; skippedReason: string; carriesFailure: boolean }
  | { kind: 'cancel' };

const WAIT: TaskDecision = { kind: 'wait' };
const START: TaskDecision = { kind: 'start' };

/** The decision for `task`, given every task's state and the tasks that carry a failure. */
export function decideTask(task: TaskNode, states: TaskStates, carriers: ReadonlySet<string>): TaskDecision {
  const statusOf = (key: string) => states.get(key)?.status ?? 'PENDING';
  if (task.dependsOn.some((dep) => statusOf(dep) === 'CANCELLED')) return { kind: 'cancel' };
  const failed = task.dependsOn.find((dep) => carriers.has(dep));
  const allEnded = task.dependsOn.every((dep) => hasEnded(statusOf(dep)));
  switch (task.when) {
    case 'all_succeeded': {
      if (failed !== undefined) return skip(task, `dependency ${failed} ${endedAs(statusOf(failed), true)}`, true);
      if (!allEnded) return WAIT;
      const missed = task.dependsOn.find((dep) => outcomeClassOf(statusOf(dep)) !== 'succeeded');
      return missed === undefined
        ? START
        : skip(task, `dependency ${missed} ${endedAs(statusOf(missed), false)}`, false);
    }
    case 'all_done':
      return allEnded ? START : WAIT;
    case 'any_failed':
      if (!allEnded) return WAIT;
      return failed !== undefined ? START : skip(task, 'no dependency failed', false);
    default:
      // A rule outside the type (a corrupt stored definition): waiting would strand the run.
      return skip(task, `unknown rule ${String(task.when)}`, false);
  }
}

function endedAs(status: string, carriesFailure: boolean): string {
  if (status !== 'SKIPPED') return `ended ${status}`;
  return carriesFailure ? 'was SKIPPED after a failure upstream' : 'was SKIPPED';
}

function skip(task: TaskNode, why: string, carriesFailure: boolean): TaskDecision {
  const verb = task.when === 'any_failed' ? 'does not hold' : 'can no longer hold';
  return { kind: 'skip', skippedReason: `${why}; rule ${task.when} ${verb}`, carriesFailure };
}
