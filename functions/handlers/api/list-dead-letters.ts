/** GET /v1/dead-letters — the tenant's dead-lettered runs, newest first. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { runView } from '#core/views';
import { instrumented } from '../observability.ts';
import { runRepository } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { pageQueryOf } from './page-query.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';

export async function listDeadLetters(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const page = await runRepository().listDeadLetters(tenantOf(event), pageQueryOf(event));
  return json(200, { items: page.items.map((run) => runView(run)), cursor: page.cursor ?? null });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(listDeadLetters).use(httpErrors());
