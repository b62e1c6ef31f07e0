import type { APIGatewayProxyEvent } from 'aws-lambda';
import { isRepresentableInstant } from '#core/bounds';
import { NotFoundError } from '#core/errors';
import { parseWorkflowRunId } from '#core/workflows/task-run-id';
import { isWorkflowId } from '#core/workflows/workflow-ids';

/** The `{id}` path parameter of a workflow route; anything that cannot be a workflow id is simply not found. */
export function workflowIdOf(event: APIGatewayProxyEvent): string {
  const id = event.pathParameters?.id;
  if (!id || !isWorkflowId(id)) throw new NotFoundError(`workflow ${id ?? ''}`.trim());
  return id;
}

/** `{workflowRunId}`: `<workflowId>_<occurrence ms>`, the occurrence within the stored range; anything else is not found. */
export function workflowRunIdOf(event: APIGatewayProxyEvent): string {
  const id = event.pathParameters?.workflowRunId;
  const parts = id === undefined ? undefined : parseWorkflowRunId(id);
  if (!id || !parts || !isWorkflowId(parts.workflowId) || !isRepresentableInstant(parts.scheduledFor))
    throw new NotFoundError(`workflow run ${id ?? ''}`.trim());
  return id;
}
