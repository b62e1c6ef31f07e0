/**
 * POST /v1/workflows/{id}/resume — PAUSED → ACTIVE, as a job: a scheduled workflow goes back into
 * the due-index, its misfire policy deciding about the occurrences missed while paused (409 from
 * any other state).
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { tasksOf } from '#core/use-cases/workflows/read-workflows';
import { resumeWorkflow as resumeWorkflowUseCase } from '#core/use-cases/workflows/workflow-transitions';
import { workflowView } from '#core/workflows/workflow-view';
import { logger } from '../logger.ts';
import { instrumented } from '../observability.ts';
import { materializeDeps, workflowRepository } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { runMeterOf } from './job-admission.ts';
import { etagOf } from './job-etag.ts';
import { quotaErrors } from './quota-errors.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';
import { workflowIdOf } from './workflow-path-id.ts';

export async function resumeWorkflow(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const tenantId = tenantOf(event);
  const workflowId = workflowIdOf(event);
  const now = Date.now();
  const workflows = workflowRepository();
  const head = await resumeWorkflowUseCase(
    { ...materializeDeps(), workflows },
    tenantId,
    workflowId,
    now,
    runMeterOf(tenantId, now),
  );
  logger.info('workflow resumed', { tenantId, workflowId, nextFireAt: head.nextFireAt });
  return json(200, workflowView(head, await tasksOf(workflows, head)), { etag: etagOf(head) });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(resumeWorkflow)
  .use(httpErrors())
  .use(quotaErrors());
