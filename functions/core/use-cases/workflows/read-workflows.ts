/** Reading workflows: one with its current version's tasks, or a page of the tenant's heads. */
import { NotFoundError } from '../../errors.ts';
import type { Page } from '../../ports.ts';
import type { WorkflowListQuery, WorkflowRepository } from '../../workflows/ports.ts';
import type { WorkflowHead, WorkflowTaskJob } from '../../workflows/stored.ts';

/** The tenant's workflow head; NotFoundError for a missing id, another tenant's, or any item that is no workflow. */
export async function requireWorkflow(
  workflows: Pick<WorkflowRepository, 'get'>,
  tenantId: string,
  workflowId: string,
): Promise<WorkflowHead> {
  const head = await workflows.get(tenantId, workflowId);
  if (!head) throw new NotFoundError(`workflow ${workflowId}`);
  return head;
}

/** The head and the task items of its current version. */
export async function getWorkflow(
  workflows: Pick<WorkflowRepository, 'get' | 'getTasks'>,
  tenantId: string,
  workflowId: string,
): Promise<{ head: WorkflowHead; tasks: WorkflowTaskJob[] }> {
  const head = await requireWorkflow(workflows, tenantId, workflowId);
  return { head, tasks: await tasksOf(workflows, head) };
}

/** The task items the head's graph names. */
export function tasksOf(workflows: Pick<WorkflowRepository, 'getTasks'>, head: WorkflowHead) {
  return workflows.getTasks(
    head.tenantId,
    head.graph.map((entry) => entry.taskJobId),
  );
}

export function listWorkflows(
  workflows: Pick<WorkflowRepository, 'list'>,
  tenantId: string,
  query: WorkflowListQuery,
): Promise<Page<WorkflowHead>> {
  return workflows.list(tenantId, query);
}
