/** POST /v1/workflows/{id}/pause — ACTIVE → PAUSED, as a job: its schedule makes no more runs until resumed (409 from any other state). */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { tasksOf } from '#core/use-cases/workflows/read-workflows';
import { pauseWorkflow as pauseWorkflowUseCase } from '#core/use-cases/workflows/workflow-transitions';
import { workflowView } from '#core/workflows/workflow-view';
import { logger } from '../logger.ts';
import { instrumented } from '../observability.ts';
import { jobCountsUpdater, jobRepository, runRepository, workflowRepository } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { etagOf } from './job-etag.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';
import { workflowIdOf } from './workflow-path-id.ts';

export async function pauseWorkflow(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const tenantId = tenantOf(event);
  const workflowId = workflowIdOf(event);
  const workflows = workflowRepository();
  const head = await pauseWorkflowUseCase(
    { jobs: jobRepository(), runs: runRepository(), jobCounts: jobCountsUpdater(), workflows },
    tenantId,
    workflowId,
    Date.now(),
  );
  logger.info('workflow paused', { tenantId, workflowId });
  return json(200, workflowView(head, await tasksOf(workflows, head)), { etag: etagOf(head) });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(pauseWorkflow).use(httpErrors());
