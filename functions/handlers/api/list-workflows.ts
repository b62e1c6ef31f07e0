/** GET /v1/workflows — the tenant's workflows in creation order, each with its task count instead of its tasks. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { listWorkflows as listWorkflowsUseCase } from '#core/use-cases/workflows/read-workflows';
import { workflowSummaryView } from '#core/workflows/workflow-view';
import { instrumented } from '../observability.ts';
import { workflowRepository } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { QueryReader } from './query-params.ts';
import { queryNames, WORKFLOW_LIST_QUERY } from './query-schemas.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';

export async function listWorkflows(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const query = new QueryReader(event, queryNames(WORKFLOW_LIST_QUERY));
  const page = query.page();
  query.done();
  const heads = await listWorkflowsUseCase(workflowRepository(), tenantOf(event), page);
  return json(200, { items: heads.items.map(workflowSummaryView), cursor: heads.cursor ?? null });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(listWorkflows).use(httpErrors());
