import type { APIGatewayProxyEvent } from 'aws-lambda';
import { NotFoundError } from '#core/errors';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** The `{id}` path parameter; anything that cannot be a job id is simply not found. */
export function jobIdOf(event: APIGatewayProxyEvent): string {
  const id = event.pathParameters?.id;
  if (!id || !ULID.test(id)) throw new NotFoundError(`job ${id ?? ''}`.trim());
  return id;
}
