/** GET /v1/dead-letters — the tenant's dead-lettered runs, newest first. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { runView } from '#core/views';
import { instrumented } from '../observability.ts';
import { runRepository } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { QueryReader } from './query-params.ts';
import { DEAD_LETTER_QUERY, queryNames } from './query-schemas.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';

/** `limit` and `cursor`, nothing else; 400 naming every bad one. */
export function deadLetterQueryOf(event: APIGatewayProxyEvent): { limit: number; cursor?: string } {
  const query = new QueryReader(event, queryNames(DEAD_LETTER_QUERY));
  const page = query.page();
  query.done();
  return page;
}

export async function listDeadLetters(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const page = await runRepository().listDeadLetters(tenantOf(event), deadLetterQueryOf(event));
  return json(200, { items: page.items.map((run) => runView(run)), cursor: page.cursor ?? null });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(listDeadLetters).use(httpErrors());
