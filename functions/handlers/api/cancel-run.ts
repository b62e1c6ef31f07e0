/**
 * POST /v1/runs/{runId}/cancel — a soft cancel (core/use-cases/async/cancel-run.ts): a run not
 * called yet ends CANCELLED at once; an async run in flight is asked to stop (its next heartbeat
 * answers `cancelRequested: true`) and ends CANCELLED after its job's `cancelGraceSeconds` without
 * a completion. An ended run is 409 RUN_ENDED; a synchronous call in progress 409 RUN_NOT_CANCELLABLE.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { cancelRun as cancelRunUseCase } from '#core/use-cases/async/cancel-run';
import { runView } from '#core/views';
import { logger } from '../logger.ts';
import { instrumented } from '../observability.ts';
import { asyncRunDeps } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { runIdOf } from './path-id.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';

export async function cancelRun(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const tenantId = tenantOf(event);
  const runId = runIdOf(event);
  const run = await cancelRunUseCase(asyncRunDeps(), tenantId, runId);
  logger.info('run cancel requested', { tenantId, runId, status: run.status });
  return json(200, runView(run));
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(cancelRun).use(httpErrors());
