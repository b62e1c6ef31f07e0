/**
 * POST /v1/workflow-runs/{workflowRunId}/retry — a new round: the failed tasks and what depends on
 * them that did not succeed run again (202 with the run); 409 while a task is still going, when
 * nothing failed, or for a cancelled run.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { retryWorkflowRun as retryWorkflowRunUseCase } from '#core/use-cases/workflows/retry-workflow-run';
import { workflowRunView } from '#core/workflows/workflow-run-view';
import { logger } from '../logger.ts';
import { instrumented } from '../observability.ts';
import { workflowRunDeps } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';
import { workflowRunIdOf } from './workflow-path-id.ts';

export async function retryWorkflowRun(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const tenantId = tenantOf(event);
  const workflowRunId = workflowRunIdOf(event);
  const run = await retryWorkflowRunUseCase(workflowRunDeps(), tenantId, workflowRunId, Date.now());
  logger.info('workflow run retried', { tenantId, workflowRunId, round: run.round });
  return json(202, workflowRunView(run));
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(retryWorkflowRun).use(httpErrors());
