import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ValidationError } from '#core/errors';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** `limit` and `cursor` from the query string, validated. */
export function pageQueryOf(event: APIGatewayProxyEvent): { limit: number; cursor?: string } {
  const query = event.queryStringParameters ?? {};
  let limit = DEFAULT_PAGE_SIZE;
  if (query.limit !== undefined) {
    limit = Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
      throw new ValidationError([{ field: 'limit', reason: `must be an integer from 1 to ${MAX_PAGE_SIZE}` }]);
    }
  }
  return query.cursor ? { limit, cursor: query.cursor } : { limit };
}
