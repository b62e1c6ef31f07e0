/**
 * DELETE /v1/jobs/{id} — cancel: 200 with the CANCELLED job (kept as history). Idempotent:
 * cancelling again answers the same. 409 for a job that already COMPLETED or FAILED.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { cancelAsyncRunsInFlight } from '#core/use-cases/async/cancel-run';
import { cancelJob as cancelJobUseCase } from '#core/use-cases/cancel-job';
import { jobView } from '#core/views';
import { logger } from '../logger.ts';
import { instrumented } from '../observability.ts';
import { asyncRunDeps, asyncRunStore, jobCountsUpdater, jobRepository } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { etagOf } from './job-etag.ts';
import { jobIdOf } from './path-id.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';

export async function cancelJob(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const tenantId = tenantOf(event);
  const jobId = jobIdOf(event);
  const job = await cancelJobUseCase(
    {
      jobs: jobRepository(),
      jobCounts: jobCountsUpdater(),
      cancelAsyncRuns: (tenant, job) =>
        cancelAsyncRunsInFlight({ ...asyncRunDeps(), inFlight: (t, j) => asyncRunStore().inFlight(t, j) }, tenant, job),
    },
    tenantId,
    jobId,
    Date.now(),
  );
  logger.info('job cancelled', { tenantId, jobId });
  return json(200, jobView(job), { etag: etagOf(job) });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(cancelJob).use(httpErrors());
