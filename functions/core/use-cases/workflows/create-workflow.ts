/**
 * Creates a workflow (POST /v1/workflows): version 1's task items first, then the head, so a head
 * never names items that are not there. A workflow with a schedule is created through the job
 * creation path (create-job.ts), its job write being the workflow's: it enters the due-index (or,
 * due within the horizon, is materialized at once) exactly as a job does, and the scanner makes
 * its occurrences as ordinary runs. A workflow without one is written with no `nextFireAt`: only
 * a trigger starts it.
 */
import type { NewJobFields } from '../../job-input.ts';
import { DEFAULT_TIMEOUT_SECONDS } from '../../limits.ts';
import type { Job } from '../../model.ts';
import type { JobRepository } from '../../ports.ts';
import { DEFAULT_RETRY_POLICY } from '../../retry-policy.ts';
import type { NewWorkflowFields } from '../../workflows/parse-workflow.ts';
import type { WorkflowRepository } from '../../workflows/ports.ts';
import { WORKFLOW_KIND, type WorkflowHead, type WorkflowTaskJob } from '../../workflows/stored.ts';
import { type CreateJobDeps, createJob, storedNew } from '../create-job.ts';
import type { MaterializeDeps } from '../materialize-occurrences.ts';
import { type SealedTask, taskItemsOf } from './task-items.ts';

export interface CreateWorkflowDeps extends MaterializeDeps, Pick<CreateJobDeps, 'admission'> {
  workflows: WorkflowRepository;
}

/** A create request as stored: secret headers sealed into each task's target. */
export type WorkflowDefinition = Omit<NewWorkflowFields, 'tasks'> & { tasks: SealedTask[] };

/**
 * Stores a validated workflow under `workflowId` (fresh, or bound to an Idempotency-Key); a head
 * with that id already stored throws JobExistsError. Returns the head as stored.
 */
export async function createWorkflow(
  deps: CreateWorkflowDeps,
  tenantId: string,
  definition: WorkflowDefinition,
  now: number,
  workflowId: string,
): Promise<WorkflowHead> {
  const { items, graph } = taskItemsOf(tenantId, workflowId, 1, definition.tasks, now);
  const head: WorkflowHead = {
    tenantId,
    jobId: workflowId,
    kind: WORKFLOW_KIND,
    ...(definition.name === undefined ? {} : { name: definition.name }),
    ...(definition.schedule === undefined ? {} : { schedule: definition.schedule }),
    policies: definition.policies,
    ...(definition.onFailureUrl === undefined ? {} : { onFailureUrl: definition.onFailureUrl }),
    status: 'ACTIVE',
    version: 1,
    definitionVersion: 1,
    graph,
    // The starter run's own: the executor reads these for any run.
    retry: DEFAULT_RETRY_POLICY,
    delivery: 'at-least-once',
    timeoutSeconds: DEFAULT_TIMEOUT_SECONDS,
    createdAt: now,
    updatedAt: now,
    occurrenceCount: 0,
  };
  if (head.schedule === undefined) {
    await deps.workflows.create(head, items);
    await storedNew(deps, tenantId);
    return head;
  }
  const { tenantId: _tenant, jobId: _id, status: _status, version: _version, ...rest } = head;
  const fields = rest as unknown as NewJobFields;
  const created = await createJob(
    { ...deps, jobs: writingWorkflow(deps.jobs, deps.workflows, items), ids: { next: () => workflowId } },
    tenantId,
    fields,
    now,
    workflowId,
  );
  return created as unknown as WorkflowHead;
}

/** The jobs repository, whose `create` writes the workflow: its task items, then its head (the job). */
function writingWorkflow(jobs: JobRepository, workflows: WorkflowRepository, items: WorkflowTaskJob[]): JobRepository {
  const writer: JobRepository = Object.create(jobs);
  writer.create = (job: Job) => workflows.create(job as unknown as WorkflowHead, items);
  return writer;
}
