/** GET /v1/jobs/{id} — the job, its status, next fire time, next occurrences and its latest run. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { getJob as getJobUseCase, upcomingOccurrences } from '#core/use-cases/read-jobs';
import { jobView } from '#core/views';
import { instrumented } from '../observability.ts';
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
  return json(200, jobView(job, latestRun, upcomingOccurrences(job, Date.now())), { etag: etagOf(job) });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(getJob).use(httpErrors());
