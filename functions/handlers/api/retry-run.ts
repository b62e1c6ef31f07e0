/** POST /v1/runs/{runId}/retry — re-drive a dead-lettered run as a new attempt, now. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { redriveRun } from '#core/use-cases/dead-letters';
import { runView } from '#core/views';
import { instrumented } from '../observability.ts';
import { jobRepository, runDispatcher, runRepository, schedulingConfig } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { runMeterOf } from './job-admission.ts';
import { runIdOf } from './path-id.ts';
import { quotaErrors } from './quota-errors.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';

export async function retryRun(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const runId = runIdOf(event);
  const tenantId = tenantOf(event);
  const now = Date.now();
  const run = await redriveRun(
    {
      jobs: jobRepository(),
      runs: runRepository(),
      dispatcher: runDispatcher(),
      config: schedulingConfig(),
      meter: runMeterOf(tenantId, now),
    },
    tenantId,
    runId,
    now,
  );
  return json(202, runView(run));
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(retryRun)
  .use(httpErrors())
  .use(quotaErrors());
