import type { APIGatewayProxyEvent } from 'aws-lambda';
import { isIntegerBetween, isRepresentableInstant, MAX_ATTEMPT_NUMBER } from '#core/bounds';
import { NotFoundError } from '#core/errors';
import { parseRunId } from '#core/run-id';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** The `{id}` path parameter; anything that cannot be a job id is simply not found. */
export function jobIdOf(event: APIGatewayProxyEvent): string {
  const id = event.pathParameters?.id;
  if (!id || !ULID.test(id)) throw new NotFoundError(`job ${id ?? ''}`.trim());
  return id;
}

/**
 * The `{runId}` path parameter; anything that cannot be a run id Chronos made (its occurrence
 * outside the stored range, an attempt the runs table's key cannot hold) is simply not found.
 */
export function runIdOf(event: APIGatewayProxyEvent): string {
  const id = event.pathParameters?.runId;
  const parts = id === undefined ? undefined : parseRunId(id);
  const made =
    parts !== undefined &&
    isRepresentableInstant(parts.scheduledFor) &&
    isIntegerBetween(parts.attempt, 1, MAX_ATTEMPT_NUMBER);
  if (!id || !made) throw new NotFoundError(`run ${id ?? ''}`.trim());
  return id;
}
