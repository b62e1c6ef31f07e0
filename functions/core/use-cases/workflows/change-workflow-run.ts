/**
 * Every change to a workflow run goes through here: read it (strongly consistent), apply the
 * event (`change`), take the step the graph rules decide (workflow-step.ts), create the runs of
 * the tasks that start, and write the run back only if no other writer came first (`revision`).
 * When another did — two parents ending at the same instant, on two stream shards — the event is
 * applied again to the fresh run, so both ends count and the child starts once (its run id is
 * the same whoever starts it). A run that ends here notifies its onFailure URL when it FAILED and
 * frees its workflow's overlap marker; both are repeated safely (the notice has a stable id, the
 * marker is released only by its own occurrence), so a redelivered event that finds the run
 * ended does them again rather than risk never doing them.
 */
import { failureNoticeOf } from '../../notifications/failure-notice.ts';
import { runKeyOfId } from '../../run-id.ts';
import type { WorkflowGraphEntry, WorkflowRun } from '../../workflows/stored.ts';
import { isFailure } from '../../workflows/task-outcome.ts';
import { workflowStep } from '../../workflows/workflow-step.ts';
import { startTaskRuns } from './start-task-runs.ts';
import type { WorkflowRunDeps } from './workflow-run-deps.ts';

/**
 * Conflicting writes tolerated before the event is given back (the stream retries the record; an
 * API caller gets a 5xx it may retry). A wide fan-in ends many parents at once: each conflict
 * waits a random, growing moment before it reads again, so the writers spread out instead of
 * colliding in lockstep.
 */
const MAX_TRIES = 60;
const BACKOFF_STEP_MS = 10;

export class WorkflowRunBusyError extends Error {
  constructor(workflowRunId: string) {
    super(`workflow run ${workflowRunId} kept changing under ${MAX_TRIES} tries`);
    this.name = 'WorkflowRunBusyError';
  }
}

/**
 * Applies `change` (the run with the event applied, or undefined for "nothing to apply": the step
 * is still taken) and what follows from it. Returns the run as written (or as found when nothing
 * changed), undefined when there is no such run.
 */
export async function changeWorkflowRun(
  deps: WorkflowRunDeps,
  tenantId: string,
  workflowRunId: string,
  change: (run: WorkflowRun) => WorkflowRun | undefined,
  now: number,
): Promise<WorkflowRun | undefined> {
  // Task runs this call put in a try whose write lost: kept if the run as written names them.
  const putEarlier = new Map<string, string>();
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const current = await deps.workflowRuns.get(tenantId, workflowRunId);
    if (!current) return undefined;
    const changed = change(current);
    const step = workflowStep(changed ?? current, now);
    if (changed === undefined && step.unchanged) {
      await discardOrphans(deps, current, putEarlier);
      if (current.status !== 'RUNNING') await afterEnd(deps, current);
      return current;
    }
    const { run: stepped, started } = await startAll(deps, step.next, step.start, now);
    const next = { ...stepped, revision: current.revision + 1 };
    if (await deps.workflowRuns.replace(next, current.revision)) {
      await discardOrphans(deps, next, putEarlier);
      if (next.status !== 'RUNNING') await afterEnd(deps, next);
      return next;
    }
    for (const key of started) {
      const runId = stepped.tasks[key]?.runId;
      if (runId !== undefined) putEarlier.set(key, runId);
    }
    const backoff = Math.random() * BACKOFF_STEP_MS * Math.min(attempt + 1, 10);
    await new Promise((resolve) => setTimeout(resolve, backoff));
  }
  throw new WorkflowRunBusyError(workflowRunId);
}

/**
 * A task run put in a lost try that the run as written does not name (its task was cancelled
 * meanwhile): removed while still QUEUED, so a cancel that came between the put and the write is
 * not undone by a call. One claimed already is called; its end changes nothing (the task ended).
 */
async function discardOrphans(deps: WorkflowRunDeps, run: WorkflowRun, putEarlier: Map<string, string>) {
  for (const [key, runId] of putEarlier) {
    if (run.tasks[key]?.runId === runId) continue;
    const orphan = runKeyOfId(run.tenantId, runId);
    if (orphan) await deps.runs.discardQueued(orphan);
  }
}

/**
 * Puts the runs of the tasks a step started. A task whose request cannot be made ends FAILED
 * without a call, and that may make others ready (an `any_failed` or `all_done` dependent): the
 * step is taken again and their runs put too, until nothing more starts, so the run written never
 * names a task run that was not put. Returns the run so stepped and the tasks whose runs were put.
 */
async function startAll(
  deps: WorkflowRunDeps,
  stepped: WorkflowRun,
  starting: readonly WorkflowGraphEntry[],
  now: number,
): Promise<{ run: WorkflowRun; started: string[] }> {
  let run = stepped;
  let start = starting;
  const started: string[] = [];
  while (start.length > 0) {
    const unstartable = await startTaskRuns(deps, run, start, now);
    started.push(...start.map((entry) => entry.key).filter((key) => !unstartable.has(key)));
    if (unstartable.size === 0) break;
    const again = workflowStep(withFailed(run, unstartable, now), now);
    run = again.next;
    start = again.start;
  }
  return { run, started };
}

/** Tasks whose request could not be made end FAILED without a call. */
function withFailed(run: WorkflowRun, reasons: Map<string, string>, now: number): WorkflowRun {
  const tasks = { ...run.tasks };
  for (const [key, reason] of reasons)
    tasks[key] = { status: 'FAILED', errorType: 'invalid_target', skippedReason: reason, completedAt: now };
  return { ...run, tasks };
}

async function afterEnd(deps: WorkflowRunDeps, run: WorkflowRun): Promise<void> {
  if (run.status === 'FAILED' && run.onFailureUrl !== undefined && deps.notices) {
    await deps.notices.send(failureNoticeOf(failedTaskOf(run)));
  }
  // Only the occurrence holding the marker removes it: a no-op for any other.
  if (run.holdsInFlight) await deps.jobs.releaseInFlight(run.tenantId, run.workflowId, run.scheduledFor);
}

/** The notice names the workflow (its head carries the onFailure URL) and its first failed task's run. */
function failedTaskOf(run: WorkflowRun) {
  const failed = run.graph.map((entry) => run.tasks[entry.key]).find((state) => state && isFailure(state.status));
  const parts = runKeyOfId(run.tenantId, failed?.runId);
  return {
    tenantId: run.tenantId,
    jobId: run.workflowId,
    scheduledFor: run.scheduledFor,
    attempt: parts?.attempt ?? failed?.attempt ?? 1,
    runId: failed?.runId ?? run.workflowRunId,
    status: 'FAILED' as const,
    ...(failed?.errorType === undefined ? {} : { errorType: failed.errorType }),
    ...(failed?.httpStatus === undefined ? {} : { httpStatus: failed.httpStatus }),
    ...(failed?.skippedReason === undefined ? {} : { error: failed.skippedReason }),
  };
}
