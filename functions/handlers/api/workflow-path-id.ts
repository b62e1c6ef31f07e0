import type { APIGatewayProxyEvent } from 'aws-lambda';
import { NotFoundError } from '#core/errors';
import { isWorkflowId } from '#core/workflows/workflow-ids';

/** The `{id}` path parameter of a workflow route; anything that cannot be a workflow id is simply not found. */
export function workflowIdOf(event: APIGatewayProxyEvent): string {
  const id = event.pathParameters?.id;
  if (!id || !isWorkflowId(id)) throw new NotFoundError(`workflow ${id ?? ''}`.trim());
  return id;
}
