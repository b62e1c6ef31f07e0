/** POST /v1/jobs/{id}/pause — ACTIVE → PAUSED: no more calls until resumed (409 from any other state). */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { pauseJob as pauseJobUseCase } from '#core/use-cases/pause-resume-job';
import { jobView } from '#core/views';
import { logger } from '../logger.ts';
import { jobRepository, runRepository } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { etagOf } from './job-etag.ts';
import { jobIdOf } from './path-id.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';

export async function pauseJob(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const tenantId = tenantOf(event);
  const jobId = jobIdOf(event);
  const job = await pauseJobUseCase({ jobs: jobRepository(), runs: runRepository() }, tenantId, jobId, Date.now());
  logger.info('job paused', { tenantId, jobId, pausedNextFireAt: job.pausedNextFireAt });
  return json(200, jobView(job), { etag: etagOf(job.version) });
}

export const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>(pauseJob)
  .use(injectLambdaContext(logger))
  .use(httpErrors());
