/**
 * Starting a workflow run: its item is put once per occurrence (`<workflowId>_<scheduledFor>`,
 * conditional), with the head's current graph and version, so a PATCH later changes nothing for
 * it; then the first step starts every task without dependencies at once (fan-out). A start
 * repeated (a redelivered starter run, a retried trigger) finds the run and takes the step again,
 * which creates only what is missing.
 *
 * `overlap: "forbid"`: a scheduled occurrence starts only while no earlier workflow run of the
 * workflow is RUNNING. The workflow's in-flight marker (the jobs' own, on the head) is taken
 * before the run is put and given back by the run's end (change-workflow-run.ts); should that
 * release be lost, it expires after FORBID_MARKER_MS.
 */
import type { WorkflowHead, WorkflowRun } from '../../workflows/stored.ts';
import { workflowRunIdOf } from '../../workflows/task-run-id.ts';
import { changeWorkflowRun } from './change-workflow-run.ts';
import type { WorkflowRunDeps } from './workflow-run-deps.ts';

const DAY_MS = 86_400_000;
/** How long a lost release can hold a `forbid` workflow: a week, the longest an async task may run. */
export const FORBID_MARKER_MS = 7 * DAY_MS;

export interface StartOptions {
  triggered?: boolean;
  triggerKey?: string;
}

export type ScheduledStart = { kind: 'started'; run: WorkflowRun } | { kind: 'skipped'; reason: string };

/** The workflow run of `head` at `scheduledFor`, as first written (not yet stepped). */
export function newWorkflowRun(
  head: WorkflowHead,
  scheduledFor: number,
  now: number,
  retentionDays: number,
  options: StartOptions & { holdsInFlight?: boolean } = {},
): WorkflowRun {
  return {
    tenantId: head.tenantId,
    workflowId: head.jobId,
    workflowRunId: workflowRunIdOf({ workflowId: head.jobId, scheduledFor }),
    scheduledFor,
    version: head.definitionVersion,
    graph: head.graph,
    ...(head.name === undefined ? {} : { name: head.name }),
    ...(head.onFailureUrl === undefined ? {} : { onFailureUrl: head.onFailureUrl }),
    status: 'RUNNING',
    round: 0,
    tasks: {},
    revision: 0,
    startedAt: now,
    ...(options.triggered ? { triggered: true } : {}),
    ...(options.triggerKey === undefined ? {} : { triggerKey: options.triggerKey }),
    ...(options.holdsInFlight ? { holdsInFlight: true } : {}),
    expiresAt: Math.ceil((Math.max(now, scheduledFor) + retentionDays * DAY_MS) / 1000),
  };
}

/** Puts the run unless it exists, then steps it (fan-out). Returns the run as stepped. */
export async function startWorkflowRun(deps: WorkflowRunDeps, fresh: WorkflowRun, now: number): Promise<WorkflowRun> {
  const creation = await deps.workflowRuns.create(fresh);
  const stepped = await changeWorkflowRun(deps, fresh.tenantId, fresh.workflowRunId, () => undefined, now);
  return stepped ?? (creation.created ? fresh : creation.existing);
}

/**
 * The executor's part for a starter run (an occurrence the scanner made of a scheduled
 * workflow): start that occurrence's workflow run, or skip it under `overlap: "forbid"`.
 */
export async function startScheduledWorkflowRun(
  deps: WorkflowRunDeps,
  head: WorkflowHead,
  starter: { scheduledFor: number; runId: string },
  now: number,
): Promise<ScheduledStart> {
  const forbid = head.policies.overlap === 'forbid';
  if (forbid) {
    const marker = { scheduledFor: starter.scheduledFor, runId: starter.runId, until: now + FORBID_MARKER_MS };
    const taken = await deps.jobs.takeInFlight(head.tenantId, head.jobId, marker, now);
    if (!taken.taken) {
      const holder = taken.holder
        ? ` (workflow run ${workflowRunIdOf({ workflowId: head.jobId, scheduledFor: taken.holder.scheduledFor })})`
        : '';
      return { kind: 'skipped', reason: `overlap forbidden: an earlier workflow run is still running${holder}` };
    }
  }
  const fresh = newWorkflowRun(head, starter.scheduledFor, now, deps.config.retentionDays, { holdsInFlight: forbid });
  return { kind: 'started', run: await startWorkflowRun(deps, fresh, now) };
}
