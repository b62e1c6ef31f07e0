/**
 * What `POST /v1/workflow-runs/{id}/retry` resets: the tasks that failed and every task
 * downstream of them that did not succeed (skipped behind the failure, failed itself, or
 * cancelled). A SUCCEEDED task is never reset, even downstream of a failure (an `any_failed` alarm
 * that already ran, an `all_done` clean-up): its call happened and is not made twice.
 *
 * A retry starts a new round of the workflow run. Task runs carry the round in their identity
 * (task-run-id.ts: the round is part of the task run's occurrence), so attempt numbers start at 1 again — each task gets its full retry policy —
 * and two retry requests for the same round compute the same run ids, so only one takes effect.
 */
import { MAX_ATTEMPT_NUMBER } from '../bounds.ts';
import { downstreamOf } from './dependents.ts';
import type { TaskStates, WorkflowGraph } from './model.ts';
import { hasEnded, isFailure } from './task-outcome.ts';

/** Highest round of a workflow run: rounds are written with at most three digits, as attempts are. */
export const MAX_WORKFLOW_ROUND = MAX_ATTEMPT_NUMBER;

export type RetryPlan =
  | {
      ok: true;
      /** The round the reset tasks run in. */
      round: number;
      /** Tasks to set back to PENDING, in definition order; then readiness.ts starts what it can. */
      reset: string[];
    }
  | { ok: false; reason: 'not_ended' | 'nothing_failed' | 'rounds_exhausted'; tasks: string[] };

/**
 * The retry of a workflow run in round `round` (0 for its first). Refused while any task has not
 * ended (`not_ended`, naming them: a reset would race the run still going), when no task failed
 * (`nothing_failed`), and past MAX_WORKFLOW_ROUND (`rounds_exhausted`).
 */
export function retryPlan(graph: WorkflowGraph, states: TaskStates, round: number): RetryPlan {
  const statusOf = (key: string) => states.get(key)?.status ?? 'PENDING';
  const keys = [...new Set(graph.map((task) => task.key))];
  const going = keys.filter((key) => !hasEnded(statusOf(key)));
  if (going.length > 0) return { ok: false, reason: 'not_ended', tasks: going };
  const failed = keys.filter((key) => isFailure(statusOf(key)));
  if (failed.length === 0) return { ok: false, reason: 'nothing_failed', tasks: [] };
  const next = Number.isSafeInteger(round) && round >= 0 ? round + 1 : Number.POSITIVE_INFINITY;
  if (next > MAX_WORKFLOW_ROUND) return { ok: false, reason: 'rounds_exhausted', tasks: failed };
  const downstream = downstreamOf(graph, failed);
  return { ok: true, round: next, reset: keys.filter((key) => downstream.has(key) && statusOf(key) !== 'SUCCEEDED') };
}
