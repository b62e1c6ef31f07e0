/**
 * DELETE /v1/workflows/{id} — the workflow becomes CANCELLED (kept as history), out of the
 * due-index for good, no longer counted against the active-job quota. Idempotent; 409 for a
 * COMPLETED workflow.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { tasksOf } from '#core/use-cases/workflows/read-workflows';
import { deleteWorkflow as deleteWorkflowUseCase } from '#core/use-cases/workflows/workflow-transitions';
import { workflowView } from '#core/workflows/workflow-view';
import { logger } from '../logger.ts';
import { instrumented } from '../observability.ts';
import { jobCountsUpdater, jobRepository, workflowRepository } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { etagOf } from './job-etag.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';
import { workflowIdOf } from './workflow-path-id.ts';

export async function deleteWorkflow(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const tenantId = tenantOf(event);
  const workflowId = workflowIdOf(event);
  const workflows = workflowRepository();
  const head = await deleteWorkflowUseCase(
    { jobs: jobRepository(), workflows, jobCounts: jobCountsUpdater() },
    tenantId,
    workflowId,
    Date.now(),
  );
  logger.info('workflow cancelled', { tenantId, workflowId });
  return json(200, workflowView(head, await tasksOf(workflows, head)), { etag: etagOf(head) });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(deleteWorkflow).use(httpErrors());
