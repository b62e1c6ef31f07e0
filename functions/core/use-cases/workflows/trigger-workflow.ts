/**
 * `POST /v1/workflows/{id}/trigger`: a workflow run now, outside the schedule (the only way to
 * run a workflow without one). As a job's trigger (trigger-job.ts): a token from the tenant's
 * trigger bucket first, the instant moved off the schedule's own occurrences (their workflow runs
 * have those ids), an `Idempotency-Key` bound to the instant for 24 h so a retried request finds
 * the same workflow run, and a millisecond taken by another trigger moves this one on. A PAUSED
 * or deleted workflow is not triggered (409).
 */
import { ConflictError, NotFoundError } from '../../errors.ts';
import type { RunRepository } from '../../ports.ts';
import type { RunCreationMeter } from '../../tenants/run-creation-meter.ts';
import type { WorkflowRepository } from '../../workflows/ports.ts';
import type { WorkflowHead, WorkflowRun } from '../../workflows/stored.ts';
import { offSchedule, TRIGGER_KEY_TTL_SECONDS } from '../trigger-job.ts';
import { changeWorkflowRun } from './change-workflow-run.ts';
import { newWorkflowRun } from './start-workflow-run.ts';
import type { WorkflowRunDeps } from './workflow-run-deps.ts';

const COLLISION_ATTEMPTS = 20;

export interface TriggerWorkflowDeps extends WorkflowRunDeps {
  workflows: Pick<WorkflowRepository, 'get'>;
  triggerKeys: Pick<RunRepository, 'bindTriggerKey'>;
  meter?: RunCreationMeter;
}

export async function triggerWorkflow(
  deps: TriggerWorkflowDeps,
  tenantId: string,
  workflowId: string,
  now: number,
  idempotencyKey?: string,
): Promise<{ run: WorkflowRun; replayed: boolean }> {
  const head = await deps.workflows.get(tenantId, workflowId);
  if (!head) throw new NotFoundError(`workflow ${workflowId}`);
  if (head.status === 'CANCELLED') throw new ConflictError(`workflow ${workflowId} is deleted`);
  if (head.status === 'PAUSED') throw new ConflictError(`workflow ${workflowId} is PAUSED; resume it first`);
  await deps.meter?.take(1);

  const expiresAt = Math.floor(now / 1000) + TRIGGER_KEY_TTL_SECONDS;
  const owner = { tenantId, jobId: workflowId };
  let scheduledFor = offScheduleOf(head, now);
  if (idempotencyKey !== undefined)
    scheduledFor = await deps.triggerKeys.bindTriggerKey(owner, idempotencyKey, scheduledFor, now, expiresAt);
  for (let attempt = 0; attempt < COLLISION_ATTEMPTS; attempt++) {
    const options = { triggered: true, ...(idempotencyKey === undefined ? {} : { triggerKey: idempotencyKey }) };
    const fresh = newWorkflowRun(head, scheduledFor, now, deps.config.retentionDays, options);
    const creation = await deps.workflowRuns.create(fresh);
    const replayed =
      !creation.created && idempotencyKey !== undefined && creation.existing.triggerKey === idempotencyKey;
    if (creation.created || replayed) {
      // A replay steps the run too: the first request may have died before it started the tasks.
      const run = await changeWorkflowRun(deps, tenantId, fresh.workflowRunId, () => undefined, now);
      return { run: run ?? fresh, replayed };
    }
    const next = offScheduleOf(head, scheduledFor + 1);
    scheduledFor =
      idempotencyKey === undefined
        ? next
        : await deps.triggerKeys.bindTriggerKey(owner, idempotencyKey, next, now, expiresAt, scheduledFor);
  }
  throw new ConflictError(`workflow ${workflowId} is being triggered too often; retry`);
}

function offScheduleOf(head: WorkflowHead, at: number): number {
  return head.schedule === undefined ? at : offSchedule(head.schedule, at);
}
