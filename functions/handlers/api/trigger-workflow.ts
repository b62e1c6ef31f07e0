/**
 * POST /v1/workflows/{id}/trigger — a workflow run now, outside the schedule: 202 with the run
 * (`workflowRunId` and its tasks, the first started). `Idempotency-Key` makes a retry find the
 * same run (`Idempotent-Replayed: true`), as for a job's trigger.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { triggerWorkflow as triggerWorkflowUseCase } from '#core/use-cases/workflows/trigger-workflow';
import { workflowRunView } from '#core/workflows/workflow-run-view';
import { logger } from '../logger.ts';
import { instrumented } from '../observability.ts';
import { runRepository, workflowRepository, workflowRunDeps } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { idempotencyKeyOf } from './idempotency-key.ts';
import { runMeterOf } from './job-admission.ts';
import { quotaErrors } from './quota-errors.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';
import { workflowIdOf } from './workflow-path-id.ts';

export async function triggerWorkflow(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const tenantId = tenantOf(event);
  const workflowId = workflowIdOf(event);
  const key = idempotencyKeyOf(event);
  const now = Date.now();
  const deps = {
    ...workflowRunDeps(),
    workflows: workflowRepository(),
    triggerKeys: runRepository(),
    meter: runMeterOf(tenantId, now),
  };
  const { run, replayed } = await triggerWorkflowUseCase(deps, tenantId, workflowId, now, key);
  logger.info('workflow triggered', { tenantId, workflowId, workflowRunId: run.workflowRunId, replayed });
  return json(202, workflowRunView(run), replayed ? { 'idempotent-replayed': 'true' } : {});
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(triggerWorkflow)
  .use(httpErrors())
  .use(quotaErrors());
