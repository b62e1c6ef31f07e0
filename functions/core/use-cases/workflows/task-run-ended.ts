/**
 * A task run reached a terminal state (the completion handler, after it scheduled any retry):
 * its task's state in the workflow run moves on, and the step that follows starts, skips or ends
 * what depends on it (change-workflow-run.ts). A failed attempt that will be retried keeps the task
 * QUEUED on its next attempt; only the last attempt's end counts for the dependents.
 *
 * A task run's put comes before the write of the workflow run that names it (so the run never
 * names a task run that does not exist), so its end may arrive first: its writer died or was slow
 * between the two. Such an end is applied all the same, as is the end of a later attempt of the
 * task while an earlier one is recorded (its retry was made before the record moved to it): an end
 * is applied when it is of the task's item in the run's current round, and the task is not started
 * yet or in flight on this attempt or an earlier one. An attempt of an earlier round (the run was
 * retried since), an earlier attempt, a task already ended, or a stream record delivered again after
 * the task moved on change nothing.
 */
import type { Run } from '../../model.ts';
import { runIdOf } from '../../run-id.ts';
import type { TerminalRunStatus } from '../../run-state.ts';
import type { WorkflowRun } from '../../workflows/stored.ts';
import { outcomeClassOf } from '../../workflows/task-outcome.ts';
import { roundOfTaskRun } from '../../workflows/task-run-id.ts';
import { changeWorkflowRun } from './change-workflow-run.ts';
import type { WorkflowRunDeps } from './workflow-run-deps.ts';

export type EndedTaskRun = Pick<
  Run,
  | 'tenantId'
  | 'jobId'
  | 'scheduledFor'
  | 'attempt'
  | 'runId'
  | 'nextAttemptAt'
  | 'httpStatus'
  | 'errorType'
  | 'startedAt'
  | 'completedAt'
  | 'workflowRunId'
  | 'taskKey'
> & { status: TerminalRunStatus; workflowRunId: string; taskKey: string };

export async function recordTaskRunEnd(
  deps: WorkflowRunDeps,
  ended: EndedTaskRun,
  now: number,
): Promise<WorkflowRun | undefined> {
  return recordTaskRunEnds(deps, [ended], now);
}

/** Several ends of one workflow run's tasks, applied in one change: one read and one write for all. */
export async function recordTaskRunEnds(
  deps: WorkflowRunDeps,
  ends: readonly EndedTaskRun[],
  now: number,
): Promise<WorkflowRun | undefined> {
  const [first] = ends;
  if (!first) return undefined;
  return changeWorkflowRun(deps, first.tenantId, first.workflowRunId, (run) => applyEnds(run, ends, now), now);
}

/** The run with every end applied that applies (each as applyEnd decides, in order); undefined when none does. */
function applyEnds(run: WorkflowRun, ends: readonly EndedTaskRun[], now: number): WorkflowRun | undefined {
  let changed: WorkflowRun | undefined;
  for (const ended of ends) changed = applyEnd(changed ?? run, ended, now) ?? changed;
  return changed;
}

function applyEnd(run: WorkflowRun, ended: EndedTaskRun, now: number): WorkflowRun | undefined {
  const entry = run.graph.find((task) => task.key === ended.taskKey);
  if (entry === undefined || entry.taskJobId !== ended.jobId) return undefined;
  if (roundOfTaskRun(run.scheduledFor, ended.scheduledFor) !== run.round) return undefined;
  const state = run.tasks[ended.taskKey];
  const notStarted = state === undefined || state.status === 'PENDING';
  const inFlight = state !== undefined && outcomeClassOf(state.status) === 'in_flight';
  if (!notStarted && !(inFlight && ended.attempt >= (state.attempt ?? 1))) return undefined;
  const next =
    ended.nextAttemptAt === undefined
      ? {
          status: ended.status,
          runId: ended.runId,
          attempt: ended.attempt,
          ...(ended.startedAt === undefined ? {} : { startedAt: ended.startedAt }),
          completedAt: ended.completedAt ?? now,
          ...(ended.httpStatus === undefined ? {} : { httpStatus: ended.httpStatus }),
          ...(ended.errorType === undefined ? {} : { errorType: ended.errorType }),
        }
      : {
          status: 'QUEUED' as const,
          runId: runIdOf({ jobId: ended.jobId, scheduledFor: ended.scheduledFor, attempt: ended.attempt + 1 }),
          attempt: ended.attempt + 1,
        };
  return { ...run, tasks: { ...run.tasks, [ended.taskKey]: next } };
}
