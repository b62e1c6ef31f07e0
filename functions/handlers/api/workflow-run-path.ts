/**
 * The path parameters of the workflow-run routes: anything that cannot be an id Chronos made is
 * simply not found, before any table is read (a key DynamoDB would refuse must never become a 5xx).
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { isRepresentableInstant } from '#core/bounds';
import { NotFoundError } from '#core/errors';
import { parseWorkflowRunId } from '#core/workflows/task-run-id';
import { isWorkflowId } from '#core/workflows/workflow-ids';

/** `{id}` of /v1/workflows/{id}/…: a workflow id. */
export function workflowIdParam(event: APIGatewayProxyEvent): string {
  const id = event.pathParameters?.id;
  if (!id || !isWorkflowId(id)) throw new NotFoundError(`workflow ${id ?? ''}`.trim());
  return id;
}

/** `{workflowRunId}`: `<workflowId>_<occurrence ms>`, the occurrence within the stored range. */
export function workflowRunIdParam(event: APIGatewayProxyEvent): string {
  const id = event.pathParameters?.workflowRunId;
  const parts = id === undefined ? undefined : parseWorkflowRunId(id);
  if (!id || !parts || !isWorkflowId(parts.workflowId) || !isRepresentableInstant(parts.scheduledFor))
    throw new NotFoundError(`workflow run ${id ?? ''}`.trim());
  return id;
}
