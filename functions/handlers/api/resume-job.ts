/**
 * POST /v1/jobs/{id}/resume — PAUSED → ACTIVE: back in the due-index where it stood, its misfire
 * policy deciding about the occurrences missed while paused (409 from any other state).
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { resumeJob as resumeJobUseCase } from '#core/use-cases/pause-resume-job';
import { jobView } from '#core/views';
import { logger } from '../logger.ts';
import { instrumented } from '../observability.ts';
import { materializeDeps } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { runMeterOf } from './job-admission.ts';
import { etagOf } from './job-etag.ts';
import { jobIdOf } from './path-id.ts';
import { quotaErrors } from './quota-errors.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';

export async function resumeJob(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const tenantId = tenantOf(event);
  const jobId = jobIdOf(event);
  const now = Date.now();
  const job = await resumeJobUseCase(materializeDeps(), tenantId, jobId, now, runMeterOf(tenantId, now));
  logger.info('job resumed', { tenantId, jobId, nextFireAt: job.nextFireAt });
  return json(200, jobView(job), { etag: etagOf(job) });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(resumeJob)
  .use(httpErrors())
  .use(quotaErrors());
