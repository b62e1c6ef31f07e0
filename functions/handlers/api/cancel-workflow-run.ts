/**
 * POST /v1/workflow-runs/{workflowRunId}/cancel — tasks not started end CANCELLED, tasks in flight
 * are soft-cancelled as POST /v1/runs/{runId}/cancel would (202 with the CANCELLED run); 409 for a
 * run that SUCCEEDED or FAILED. Cancelling a cancelled run again repeats the soft cancels.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { requestCancel } from '#core/use-cases/async/cancel-run';
import { cancelWorkflowRun as cancelWorkflowRunUseCase } from '#core/use-cases/workflows/cancel-workflow-run';
import { workflowRunView } from '#core/workflows/workflow-run-view';
import { logger } from '../logger.ts';
import { instrumented } from '../observability.ts';
import { asyncRunDeps, workflowRunDeps } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';
import { workflowRunIdOf } from './workflow-path-id.ts';

export async function cancelWorkflowRun(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const tenantId = tenantOf(event);
  const workflowRunId = workflowRunIdOf(event);
  const deps = {
    ...workflowRunDeps(),
    cancelTaskRun: (key: Parameters<typeof requestCancel>[1]) => requestCancel(asyncRunDeps(), key),
  };
  const run = await cancelWorkflowRunUseCase(deps, tenantId, workflowRunId, Date.now());
  logger.info('workflow run cancelled', { tenantId, workflowRunId });
  return json(202, workflowRunView(run));
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(cancelWorkflowRun).use(httpErrors());
