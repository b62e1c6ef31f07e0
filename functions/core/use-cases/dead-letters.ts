/**
 * Dead letters: a dispatch message SQS gave up on (maxReceiveCount) still ends its run visibly,
 * as DEAD_LETTERED with the reason; a tenant can list them and re-drive one as a new attempt.
 */
import { MAX_ATTEMPT_NUMBER } from '../bounds.ts';
import { ConflictError, NotFoundError } from '../errors.ts';
import type { DispatchMessage, Run } from '../model.ts';
import type { JobRepository, RunDispatcher, RunRepository } from '../ports.ts';
import { runKeyOfId } from '../run-id.ts';
import { dispatchRequestOf, sendRuns } from '../runs/send-runs.ts';
import type { RunCreationMeter } from '../tenants/run-creation-meter.ts';
import { newRun } from './new-run.ts';

/** Records the run of a dead-lettered message; false when the run had already ended otherwise. */
export async function recordDeadLetter(
  runs: RunRepository,
  message: DispatchMessage,
  receiveCount: number,
  now: number,
): Promise<boolean> {
  // SQS keeps counting receives after the move, so this is the count as the DLQ consumer saw it.
  return runs.deadLetter(
    message,
    `dispatch message moved to the dead-letter queue after repeated failed deliveries (receive count ${receiveCount})`,
    now,
  );
}

export interface RedriveDeps {
  jobs: JobRepository;
  runs: RunRepository;
  dispatcher: RunDispatcher;
  config: { retentionDays: number };
  /** The tenant's trigger bucket (the API always passes it): a re-drive is a run created by hand. */
  meter?: RunCreationMeter;
}

/** Re-drives a dead-lettered run of the tenant as a new attempt of the same occurrence, now. */
export async function redriveRun(deps: RedriveDeps, tenantId: string, runId: string, now: number): Promise<Run> {
  const key = runKeyOfId(tenantId, runId);
  if (!key) throw new NotFoundError(`run ${runId}`);
  const run = await deps.runs.get(key);
  if (!run) throw new NotFoundError(`run ${runId}`);
  if (run.status !== 'DEAD_LETTERED')
    throw new ConflictError(`run ${runId} is ${run.status}; only dead-lettered runs can be re-driven`);
  // A task's dead letter ended its task: a lone new attempt would call the target and change
  // nothing in its workflow run. The workflow run's retry runs it again, with what depends on it.
  if (run.workflowRunId !== undefined)
    throw new ConflictError(
      `run ${runId} is a task of workflow run ${run.workflowRunId}; retry it with POST /v1/workflow-runs/${run.workflowRunId}/retry`,
    );
  const job = await deps.jobs.get(tenantId, run.jobId);
  if (!job || job.status === 'CANCELLED') throw new ConflictError(`job ${run.jobId} is cancelled`);

  if (run.attempt >= MAX_ATTEMPT_NUMBER)
    throw new ConflictError(`run ${runId} is attempt ${run.attempt}, the last an occurrence can have`);
  await deps.meter?.take(1);
  const next = newRun(run, run.scheduledFor, run.attempt + 1, now, deps.config.retentionDays);
  const created = await deps.runs.createIfAbsent(next);
  if (!created.created) throw new ConflictError(`run ${runId} was already re-driven as ${next.runId}`);
  await sendRuns(deps.dispatcher, [dispatchRequestOf(next, now)]);
  return next;
}
