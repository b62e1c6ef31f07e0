/** POST /v1/jobs/{id}/pause — ACTIVE → PAUSED: no more calls until resumed (409 from any other state). */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { pauseJob as pauseJobUseCase } from '#core/use-cases/pause-resume-job';
import { jobView } from '#core/views';
import { logger } from '../logger.ts';
import { instrumented } from '../observability.ts';
import { jobCountsUpdater, jobRepository, runRepository } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { etagOf } from './job-etag.ts';
import { jobIdOf } from './path-id.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';

export async function pauseJob(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const tenantId = tenantOf(event);
  const jobId = jobIdOf(event);
  const job = await pauseJobUseCase(
    { jobs: jobRepository(), runs: runRepository(), jobCounts: jobCountsUpdater() },
    tenantId,
    jobId,
    Date.now(),
  );
  logger.info('job paused', { tenantId, jobId, pausedNextFireAt: job.pausedNextFireAt });
  return json(200, jobView(job), { etag: etagOf(job) });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(pauseJob).use(httpErrors());
