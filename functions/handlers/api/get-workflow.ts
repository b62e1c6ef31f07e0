/** GET /v1/workflows/{id} — the workflow with its current version's tasks; its ETag is its version. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { getWorkflow as getWorkflowUseCase } from '#core/use-cases/workflows/read-workflows';
import { workflowView } from '#core/workflows/workflow-view';
import { instrumented } from '../observability.ts';
import { workflowRepository } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { etagOf } from './job-etag.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';
import { workflowIdOf } from './workflow-path-id.ts';

export async function getWorkflow(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const { head, tasks } = await getWorkflowUseCase(workflowRepository(), tenantOf(event), workflowIdOf(event));
  return json(200, workflowView(head, tasks), { etag: etagOf(head) });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(getWorkflow).use(httpErrors());
