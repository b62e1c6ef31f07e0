/** GET /v1/workflows/{id}/runs — the workflow's runs, newest first, a page at a time, each with its task counts. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { listWorkflowRuns as listWorkflowRunsUseCase } from '#core/use-cases/workflows/read-workflow-runs';
import { workflowRunSummaryView } from '#core/workflows/workflow-run-view';
import { instrumented } from '../observability.ts';
import { workflowRepository, workflowRunStore } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { QueryReader } from './query-params.ts';
import { queryNames, WORKFLOW_RUN_LIST_QUERY } from './query-schemas.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';
import { workflowIdOf } from './workflow-path-id.ts';

export async function listWorkflowRuns(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const tenantId = tenantOf(event);
  const workflowId = workflowIdOf(event);
  const query = new QueryReader(event, queryNames(WORKFLOW_RUN_LIST_QUERY));
  const page = query.page();
  query.done();
  // The list reads run items alone (no task run is read): deployed, this function has no runs table.
  const deps = { workflowRuns: workflowRunStore(), workflows: workflowRepository() };
  const runs = await listWorkflowRunsUseCase(deps, tenantId, workflowId, page);
  return json(200, { items: runs.items.map(workflowRunSummaryView), cursor: runs.cursor ?? null });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(listWorkflowRuns).use(httpErrors());
