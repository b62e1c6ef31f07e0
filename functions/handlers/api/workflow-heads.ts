/**
 * Workflow heads read through the job repository until the workflow repository is wired: a head
 * is a jobs-table item of kind `workflow`; anything else under that id is no workflow.
 */
import type { JobRepository } from '#core/ports';
import type { WorkflowRepository } from '#core/workflows/ports';
import { WORKFLOW_KIND, type WorkflowHead } from '#core/workflows/stored';

export function workflowHeads(jobs: Pick<JobRepository, 'get'>): Pick<WorkflowRepository, 'get'> {
  return {
    async get(tenantId, workflowId) {
      const item = (await jobs.get(tenantId, workflowId)) as unknown as WorkflowHead | undefined;
      return item?.kind === WORKFLOW_KIND ? item : undefined;
    },
  };
}
