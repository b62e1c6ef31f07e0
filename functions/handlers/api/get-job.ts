/** GET /v1/jobs/{id} — the job, its status, next fire time, next occurrences and its latest run. */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { getJob as getJobUseCase, upcomingOccurrences } from '#core/use-cases/read-jobs';
import { jobView } from '#core/views';
import { logger } from '../logger.ts';
import { jobRepository, runRepository } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { etagOf } from './job-etag.ts';
import { jobIdOf } from './path-id.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';

export async function getJob(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const { job, latestRun } = await getJobUseCase(
    { jobs: jobRepository(), runs: runRepository() },
    tenantOf(event),
    jobIdOf(event),
  );
  return json(200, jobView(job, latestRun, upcomingOccurrences(job, Date.now())), { etag: etagOf(job.version) });
}

export const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>(getJob)
  .use(injectLambdaContext(logger))
  .use(httpErrors());
