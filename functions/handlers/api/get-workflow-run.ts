/** GET /v1/workflow-runs/{workflowRunId} — the run, each task's state (a task in flight as its run stands now). */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { getWorkflowRun as getWorkflowRunUseCase } from '#core/use-cases/workflows/read-workflow-runs';
import { workflowRunView } from '#core/workflows/workflow-run-view';
import { instrumented } from '../observability.ts';
import { runRepository, workflowRunStore } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';
import { workflowRunIdOf } from './workflow-path-id.ts';

export async function getWorkflowRun(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const tenantId = tenantOf(event);
  const workflowRunId = workflowRunIdOf(event);
  const deps = { workflowRuns: workflowRunStore(), runs: runRepository() };
  const { run, live } = await getWorkflowRunUseCase(deps, tenantId, workflowRunId);
  return json(200, workflowRunView(run, live));
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(getWorkflowRun).use(httpErrors());
