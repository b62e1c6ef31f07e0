/**
 * POST /v1/jobs/{id}/trigger — run the job now, once, outside its schedule: 202 with the run.
 * An optional `Idempotency-Key` header makes retries safe: the same key (per job, for 24 h)
 * answers with the run the first request created (`Idempotent-Replayed: true`) and calls nothing.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { triggerJob as triggerJobUseCase } from '#core/use-cases/trigger-job';
import { runView } from '#core/views';
import { logger } from '../logger.ts';
import { instrumented } from '../observability.ts';
import { jobRepository, runDispatcher, runRepository, schedulingConfig } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { idempotencyKeyOf } from './idempotency-key.ts';
import { runMeterOf } from './job-admission.ts';
import { jobIdOf } from './path-id.ts';
import { quotaErrors } from './quota-errors.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';

export async function triggerJob(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const tenantId = tenantOf(event);
  const jobId = jobIdOf(event);
  const key = idempotencyKeyOf(event);
  const now = Date.now();
  const { run, replayed } = await triggerJobUseCase(
    {
      jobs: jobRepository(),
      runs: runRepository(),
      dispatcher: runDispatcher(),
      config: schedulingConfig(),
      meter: runMeterOf(tenantId, now),
    },
    tenantId,
    jobId,
    now,
    key,
  );
  logger.info('job triggered', { tenantId, jobId, runId: run.runId, replayed });
  return json(202, runView(run), replayed ? { 'idempotent-replayed': 'true' } : {});
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(triggerJob)
  .use(httpErrors())
  .use(quotaErrors());
