/** GET /v1/jobs/{id}/runs — the job's runs, newest first, one page at a time. */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { listRuns as listRunsUseCase } from '#core/use-cases/read-jobs';
import { runView } from '#core/views';
import { logger } from '../logger.ts';
import { jobRepository, runRepository } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { pageQueryOf } from './page-query.ts';
import { jobIdOf } from './path-id.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';

export async function listRuns(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const page = await listRunsUseCase(
    { jobs: jobRepository(), runs: runRepository() },
    tenantOf(event),
    jobIdOf(event),
    pageQueryOf(event),
  );
  return json(200, { items: page.items.map(runView), cursor: page.cursor ?? null });
}

export const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>(listRuns)
  .use(injectLambdaContext(logger))
  .use(httpErrors());
