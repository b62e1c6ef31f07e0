/**
 * Pause, resume and delete of a workflow: the head is a job item, so each is the job's own
 * transition (pause-resume-job.ts, cancel-job.ts: status, due-index, discarded runs ahead,
 * misfire on resume, job-status counters), applied once the id is known to be a workflow's.
 * A workflow without a schedule has nothing to put back in the due-index: its resume only
 * makes it ACTIVE again.
 */
import { ConflictError } from '../../errors.ts';
import type { JobStatusCounts } from '../../metrics/ports.ts';
import type { JobRepository, StoredJob } from '../../ports.ts';
import type { RunCreationMeter } from '../../tenants/run-creation-meter.ts';
import type { WorkflowRepository } from '../../workflows/ports.ts';
import type { WorkflowHead } from '../../workflows/stored.ts';
import { cancelJob } from '../cancel-job.ts';
import { changeJob, nextDefinitionOf, withoutPauseState } from '../change-job.ts';
import { type PauseDeps, pauseJob, type ResumeDeps, resumeJob } from '../pause-resume-job.ts';
import { requireWorkflow } from './read-workflows.ts';

type WithWorkflows<T> = T & { workflows: Pick<WorkflowRepository, 'get'> };

/** ACTIVE → PAUSED; ConflictError from any other state. */
export async function pauseWorkflow(
  deps: WithWorkflows<PauseDeps>,
  tenantId: string,
  workflowId: string,
  now: number,
): Promise<WorkflowHead> {
  await requireWorkflow(deps.workflows, tenantId, workflowId);
  return asHead(await asWorkflowConflict(pauseJob(deps, tenantId, workflowId, now)));
}

/** PAUSED → ACTIVE; ConflictError from any other state. */
export async function resumeWorkflow(
  deps: WithWorkflows<ResumeDeps>,
  tenantId: string,
  workflowId: string,
  now: number,
  meter?: RunCreationMeter,
): Promise<WorkflowHead> {
  const head = await requireWorkflow(deps.workflows, tenantId, workflowId);
  if (head.schedule !== undefined)
    return asHead(await asWorkflowConflict(resumeJob(deps, tenantId, workflowId, now, meter)));
  const { after, changed } = await changeJob(deps.jobs, tenantId, workflowId, (job) => {
    if (job.status !== 'PAUSED')
      throw new ConflictError(`workflow ${workflowId} is ${job.status}; only a PAUSED workflow can be resumed`);
    // Scheduled meanwhile (a PATCH racing this resume): the job's resume puts it back in the due-index.
    if ((job as Partial<StoredJob>).schedule !== undefined) return 'unchanged';
    return { write: { ...withoutPauseState(nextDefinitionOf(job, now)), status: 'ACTIVE' } };
  });
  if (!changed) return asHead(await asWorkflowConflict(resumeJob(deps, tenantId, workflowId, now, meter)));
  await deps.jobCounts?.shift(tenantId, 'PAUSED', 'ACTIVE');
  return asHead(after);
}

export interface DeleteWorkflowDeps {
  jobs: JobRepository;
  workflows: Pick<WorkflowRepository, 'get'>;
  jobCounts?: JobStatusCounts;
}

/**
 * DELETE: the head becomes CANCELLED (kept as history) and leaves the due-index for good, as a
 * cancelled job; cancelling again answers the same, a COMPLETED workflow is refused (409). The
 * active-job quota counts it no more from then on (its next recount). Task items stay: runs in
 * flight still read them.
 */
export async function deleteWorkflow(
  deps: DeleteWorkflowDeps,
  tenantId: string,
  workflowId: string,
  now: number,
): Promise<WorkflowHead> {
  await requireWorkflow(deps.workflows, tenantId, workflowId);
  return asHead(await asWorkflowConflict(cancelJob(deps, tenantId, workflowId, now)));
}

const asHead = (job: StoredJob) => job as unknown as WorkflowHead;

/** The job transitions' refusals name a "job": these are a workflow's. */
async function asWorkflowConflict<T>(transition: Promise<T>): Promise<T> {
  try {
    return await transition;
  } catch (error) {
    if (error instanceof ConflictError && error.message.startsWith('job '))
      throw new ConflictError(`workflow ${error.message.slice('job '.length).replaceAll(' job ', ' workflow ')}`);
    throw error;
  }
}
