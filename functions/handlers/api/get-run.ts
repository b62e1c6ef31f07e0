/**
 * GET /v1/runs/{runId} — one run of the caller's, with the worker's latest checkpoint of it (the
 * only place besides the callback GET that shows the checkpoint itself; run lists show only
 * `checkpointAt`). Another tenant's run, like an unknown one, is not found.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { NotFoundError } from '#core/errors';
import { parseRunId } from '#core/run-id';
import { runDetailView } from '#core/views';
import { instrumented } from '../observability.ts';
import { jobRepository, runRepository } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { runIdOf } from './path-id.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';

export async function getRun(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const tenantId = tenantOf(event);
  const runId = runIdOf(event);
  const parts = parseRunId(runId);
  if (!parts) throw new NotFoundError(`run ${runId}`);
  // The tenant is part of the key: another tenant's run is simply not there.
  const [run, job] = await Promise.all([
    runRepository().get({ tenantId, ...parts }),
    jobRepository().get(tenantId, parts.jobId),
  ]);
  if (!run) throw new NotFoundError(`run ${runId}`);
  // Timings judged against the job's SLA, as in the job's run list (the default once the job is gone).
  return json(200, runDetailView(run, job?.slaSeconds));
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(getRun).use(httpErrors());
