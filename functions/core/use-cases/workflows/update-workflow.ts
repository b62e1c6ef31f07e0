/**
 * Changes a workflow (PATCH /v1/workflows/{id}) with the job's rules (update-job.ts): the caller
 * names the definition version it read (If-Match), a change based on a stale read is refused
 * (409), and a write lost to the scanner's advance is decided again on the fresh head.
 *
 * `tasks` make a new version: its task items are written once, before the head that names them
 * (so a head never names missing items), under the new definition version; version n's items are
 * never touched, so workflow runs in flight keep calling what they started with. A schedule change
 * moves the due-index entry as a job's does (discarding starter runs materialized ahead, and
 * materializing at once when due within the horizon, metered like a job's); `schedule: null` makes
 * the workflow trigger-only: out of the due-index, its runs ahead discarded.
 */
import { definitionVersionOf } from '../../definition-version.ts';
import { ConflictError } from '../../errors.ts';
import type { StoredJob } from '../../ports.ts';
import type { RunCreationMeter } from '../../tenants/run-creation-meter.ts';
import type { JobChange } from '../../update-input.ts';
import type { WorkflowChange } from '../../workflows/parse-workflow.ts';
import type { WorkflowRepository } from '../../workflows/ports.ts';
import type { WorkflowGraphEntry, WorkflowHead, WorkflowTaskJob } from '../../workflows/stored.ts';
import { CHANGE_ATTEMPTS } from '../change-job.ts';
import { discardQueuedRunsAfter } from '../discard-queued-runs.ts';
import { type MaterializeDeps, materializeOccurrences } from '../materialize-occurrences.ts';
import { applyChange, FINISHED_STATUSES } from '../update-job.ts';
import { requireWorkflow } from './read-workflows.ts';
import { type SealedTask, taskItemsOf } from './task-items.ts';

export interface UpdateWorkflowDeps extends MaterializeDeps {
  workflows: WorkflowRepository;
}

/** A PATCH as stored: a new version's tasks with their secret headers sealed. */
export type SealedWorkflowChange = Omit<WorkflowChange, 'tasks'> & { tasks?: SealedTask[] };

/** Applies `change` if the workflow is still at definition version `expectedVersion`; the head as stored after it. */
export async function updateWorkflow(
  deps: UpdateWorkflowDeps,
  tenantId: string,
  workflowId: string,
  change: SealedWorkflowChange,
  expectedVersion: number,
  now: number,
  meter?: RunCreationMeter,
): Promise<WorkflowHead> {
  const horizon = now + deps.config.horizonMs;
  // The new version's items and graph: made once, written with the first head write only.
  const version =
    change.tasks === undefined ? undefined : taskItemsOf(tenantId, workflowId, expectedVersion + 1, change.tasks, now);
  let pending: WorkflowTaskJob[] = version?.items ?? [];
  let metered = false;
  let after: WorkflowHead | undefined;
  for (let attempt = 0; attempt < CHANGE_ATTEMPTS && !after; attempt++) {
    const head = await requireWorkflow(deps.workflows, tenantId, workflowId);
    if (FINISHED_STATUSES.includes(head.status)) throw new ConflictError(`workflow ${workflowId} is ${head.status}`);
    const current = definitionVersionOf(head);
    if (current !== expectedVersion)
      throw new ConflictError(`workflow ${workflowId} is at version ${current}, not ${expectedVersion}; re-read it`);
    const next = changedHead(head, change, version?.graph, deps.config.shardCount, now);
    if (!metered && change.schedule && next.nextFireAt !== undefined && next.nextFireAt <= horizon) {
      await meter?.take(1);
      metered = true;
    }
    if (await deps.workflows.replace(next, pending, head.version)) after = next;
    pending = [];
  }
  if (!after) throw new ConflictError(`workflow ${workflowId} kept changing concurrently; retry`);
  if (change.schedule === undefined) return after;

  await discardQueuedRunsAfter(deps.runs, after, now);
  if (after.nextFireAt === undefined || after.nextFireAt > horizon) return after;
  const due = { ...(after as unknown as StoredJob), nextFireAt: after.nextFireAt };
  await materializeOccurrences(deps, [due], now);
  return (await deps.workflows.get(tenantId, workflowId)) ?? after;
}

/** The head after `change`, one definition version on (applyChange, a job's PATCH, for its schedule and policies). */
function changedHead(
  head: WorkflowHead,
  change: SealedWorkflowChange,
  graph: WorkflowGraphEntry[] | undefined,
  shardCount: number,
  now: number,
): WorkflowHead {
  const jobChange: JobChange = {
    ...(change.name === undefined ? {} : { name: change.name }),
    ...(change.schedule ? { schedule: change.schedule } : {}),
    ...(change.policies === undefined ? {} : { policies: change.policies }),
    ...(change.onFailureUrl === undefined ? {} : { onFailureUrl: change.onFailureUrl }),
  };
  const changed = applyChange(head as unknown as StoredJob, jobChange, shardCount, now) as unknown as WorkflowHead;
  const withGraph = graph ? { ...changed, graph } : changed;
  if (change.schedule !== null) return withGraph;
  // Trigger-only from now on: nothing left in (or to put back into) the due-index.
  const {
    schedule: _schedule,
    nextFireAt: _next,
    dueShard: _shard,
    pausedNextFireAt: _paused,
    quarantine: _quarantine,
    ...rest
  } = withGraph as WorkflowHead & Partial<Pick<StoredJob, 'pausedNextFireAt' | 'quarantine'>>;
  return { ...rest, occurrenceCount: 0 };
}
