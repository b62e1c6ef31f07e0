/**
 * Reacts to a run that has just reached a terminal state (the completion handler, fed by the runs
 * stream):
 *  - a failed attempt the executor marked for retry gets its next attempt (a new run, attempt + 1,
 *    same occurrence), sent with the backoff as SQS delay, or parked in the sweep index when the
 *    delay exceeds what SQS can hold;
 *  - an occurrence that ended for good finishes a one-time job (COMPLETED or FAILED, as
 *    one-time-occurrence.ts says; an attempt skipped because the job was paused fires again once it
 *    is resumed), completes a recurring job whose schedule is exhausted, and, if it failed,
 *    queues a notice for the job's onFailure URL (the notifier calls it, off this stream: a
 *    hanging endpoint must not hold the batch, and with it every tenant's completions).
 * Every step is idempotent (deterministic run ids, conditional writes), because stream records
 * can be delivered more than once.
 */
import { MAX_SQS_DELAY_SECONDS } from '../limits.ts';
import type { JobStatusCounts } from '../metrics/ports.ts';
import type { Run } from '../model.ts';
import { type FailureNotices, failureNoticeOf } from '../notifications/failure-notice.ts';
import type { JobRepository, RunDispatcher, RunRepository } from '../ports.ts';
import type { TerminalRunStatus } from '../run-state.ts';
import { dispatchRequestOf, sendRuns } from '../runs/send-runs.ts';
import { completeIfExhausted } from './complete-exhausted.ts';
import { newRun } from './new-run.ts';
import { finishOneTimeJob, refireOccurrence, verdictOf } from './one-time-occurrence.ts';
import type { TaskRunEndBatch } from './workflows/task-run-end-batch.ts';
import { recordTaskRunEnd } from './workflows/task-run-ended.ts';
import type { WorkflowRunDeps } from './workflows/workflow-run-deps.ts';

export interface CompleteRunDeps {
  jobs: JobRepository;
  runs: RunRepository;
  dispatcher: RunDispatcher;
  /** The notifier's queue: an occurrence that failed for good is notified from there. */
  notices: FailureNotices;
  config: { retentionDays: number };
  /** Per-tenant job-status counters (monitoring); moved when this finishes a job. */
  jobCounts?: JobStatusCounts;
  /** The workflow runs a task run's end moves on (core/use-cases/workflows/). */
  workflows?: WorkflowRunDeps;
  /**
   * The caller's batch of task-run ends (task-run-end-batch.ts): the ends of one workflow run in
   * one stream batch go in one change. Without it, each end is its own change.
   */
  taskRunEnds?: Pick<TaskRunEndBatch, 'record'>;
}

export type CompletedRun = Pick<
  Run,
  | 'tenantId'
  | 'jobId'
  | 'scheduledFor'
  | 'attempt'
  | 'runId'
  | 'nextAttemptAt'
  | 'httpStatus'
  | 'error'
  | 'errorType'
  | 'completedAt'
  | 'scheduleType'
  | 'finalOccurrence'
  | 'triggered'
  | 'startedAt'
  | 'workflowRunId'
  | 'taskKey'
  | 'cancelRequestedAt'
> & { status: TerminalRunStatus };

export type CompletionChange =
  | 'retry-scheduled'
  | 'job-completed'
  | 'job-failed'
  | 'job-cancelled'
  | 'occurrence-failed'
  | 'unchanged';

/** A retry parked beyond the SQS delay is swept this long before it is due, so its delay fits. */
const PARK_LEAD_MS = (MAX_SQS_DELAY_SECONDS - 60) * 1000;
const FAILED_STATUSES: readonly TerminalRunStatus[] = ['FAILED', 'TIMED_OUT', 'DEAD_LETTERED'];

async function scheduleRetry(deps: CompleteRunDeps, run: CompletedRun, at: number, now: number): Promise<void> {
  const parked = at - now > MAX_SQS_DELAY_SECONDS * 1000;
  const { enqueuedAt, ...fresh } = newRun(run, run.scheduledFor, run.attempt + 1, now, deps.config.retentionDays);
  // A parked retry is not in SQS yet: it has no enqueuedAt until an executor records SQS's own.
  const next = { ...(parked ? fresh : { ...fresh, enqueuedAt }), availableAt: at };
  const created = await deps.runs.createIfAbsent(next, parked ? { sweepAt: at - PARK_LEAD_MS } : {});
  if (parked) return; // the scanner's sweep sends it when it is within reach of an SQS delay
  if (!created.created && created.existing.status !== 'QUEUED') return; // already picked up
  await sendRuns(deps.dispatcher, [dispatchRequestOf(next, at)]);
}

/**
 * Queues the failure notice; the notifier makes the call. Sent before the job is finished, so a
 * failed send fails the record and its redelivery sends it again (a duplicate notice carries the
 * same webhook-id).
 */
async function notifyFailure(deps: CompleteRunDeps, run: CompletedRun): Promise<void> {
  await deps.notices.send(failureNoticeOf(run));
}

/** Applies a terminal run to its occurrence and job; returns what changed. */
export async function completeRun(deps: CompleteRunDeps, run: CompletedRun, now: number): Promise<CompletionChange> {
  if (run.workflowRunId !== undefined && run.taskKey !== undefined) {
    return completeTaskRun(deps, { ...run, workflowRunId: run.workflowRunId, taskKey: run.taskKey }, now);
  }
  if (run.nextAttemptAt !== undefined) {
    await scheduleRetry(deps, run, run.nextAttemptAt, now);
    return 'retry-scheduled';
  }
  if (run.status === 'CANCELLED') {
    // The tenant cancelled a one-time job's only occurrence (POST /v1/runs/{runId}/cancel, or an
    // async worker stopping as asked: both record `cancelRequestedAt`): the job ends with it. A run
    // the executor ended CANCELLED because its job was cancelled or gone decides nothing: by the
    // time its record comes here, a create retried with the same Idempotency-Key may have written
    // the job, ACTIVE at that very occurrence, and fired it again. A PAUSED job is left to its
    // resume, which fires the occurrence again (one-time-occurrence.ts).
    const cancelledByTenant = run.scheduleType === 'once' && !run.triggered && run.cancelRequestedAt !== undefined;
    if (cancelledByTenant && (await finishOneTimeJob(deps, run, 'CANCELLED', now))) return 'job-cancelled';
    return 'unchanged';
  }
  const failed = FAILED_STATUSES.includes(run.status);
  if (failed) {
    const job = await deps.jobs.get(run.tenantId, run.jobId);
    if (job?.onFailureUrl) await notifyFailure(deps, run);
  }
  // A recurring job ends when its schedule is exhausted, whatever its last run did: tried for its
  // final occurrence only (or for a run too old to say), never for a one-time job. Elsewhere the
  // conditional write could only fail, and a failed write is still paid for.
  const recurring = run.scheduleType !== undefined && run.scheduleType !== 'once';
  const mayBeExhausted = run.scheduleType === undefined || (recurring && run.finalOccurrence === true);
  if (mayBeExhausted && (await completeIfExhausted(deps, run.tenantId, run.jobId, now))) return 'job-completed';
  // Only a one-time job's own occurrence decides it; a triggered run never does.
  if (recurring || run.triggered) return failed ? 'occurrence-failed' : 'unchanged';
  const verdict = verdictOf(run);
  if (verdict.kind === 'refire') return (await refireIfResumed(deps, run, now)) ? 'retry-scheduled' : 'unchanged';
  if (verdict.kind !== 'finish') return 'unchanged';
  // Conditional on ACTIVE and on the occurrence: while PAUSED, resume finishes it instead.
  if (await finishOneTimeJob(deps, run, verdict.status, now)) {
    return verdict.status === 'FAILED' ? 'job-failed' : 'job-completed';
  }
  return failed ? 'occurrence-failed' : 'unchanged';
}

/**
 * An attempt skipped because the job was paused: fired again if the job was resumed meanwhile
 * (resume, which reads the attempt after making the job ACTIVE, may have missed its ending);
 * while the job is still PAUSED its resume does it.
 */
async function refireIfResumed(deps: CompleteRunDeps, run: CompletedRun, now: number): Promise<boolean> {
  const job = await deps.jobs.get(run.tenantId, run.jobId);
  if (job?.status !== 'ACTIVE' || job.schedule.type !== 'once' || job.schedule.at !== run.scheduledFor) return false;
  await refireOccurrence(deps, run, now);
  return true;
}

/**
 * A workflow task's run: its retry is scheduled as any run's (unless its workflow run was
 * cancelled meanwhile: then this attempt is the task's last), and its end moves the workflow run
 * on. Its task item is never finished or notified: the workflow run is what ends, and notifies.
 */
async function completeTaskRun(
  deps: CompleteRunDeps,
  run: CompletedRun & { workflowRunId: string; taskKey: string },
  now: number,
): Promise<CompletionChange> {
  const workflows = deps.workflows;
  if (!workflows) throw new Error(`run ${run.runId} is a workflow task, but completion has no workflow-run store`);
  let ended = run;
  if (run.nextAttemptAt !== undefined) {
    const workflowRun = await workflows.workflowRuns.get(run.tenantId, run.workflowRunId);
    if (workflowRun !== undefined && workflowRun.cancelRequestedAt === undefined) {
      await scheduleRetry(deps, run, run.nextAttemptAt, now);
    } else {
      const { nextAttemptAt: _, ...last } = run;
      ended = last;
    }
  }
  if (deps.taskRunEnds) await deps.taskRunEnds.record(ended);
  else await recordTaskRunEnd(workflows, ended, now);
  return ended.nextAttemptAt !== undefined ? 'retry-scheduled' : 'unchanged';
}
