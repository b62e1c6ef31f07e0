/**
 * POST /v1/callbacks/{token}/heartbeat — the worker of an async run is alive: the heartbeat
 * deadline moves by the job's `heartbeatTimeoutSeconds`, progress and checkpoint are recorded,
 * and the answer says whether a cancel was requested (core/use-cases/async/callbacks.ts). A first
 * heartbeat may accept the run before the executor recorded the 202. Public: the token is the credential.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { MAX_CHECKPOINT_BYTES, MAX_PROGRESS_MESSAGE_BYTES, parseHeartbeat } from '#core/async/heartbeat-body';
import { ValidationError } from '#core/errors';
import { heartbeatRun } from '#core/use-cases/async/callbacks';
import heartbeatSchema from '#schemas/callback-heartbeat.json' with { type: 'json' };
import { instrumented } from '../observability.ts';
import { callbackDeps } from '../wiring.ts';
import { callbackBody } from './callback-body.ts';
import { callbackTokenOf } from './callback-token.ts';
import { httpErrors } from './http-errors.ts';
import { json } from './responses.ts';

/**
 * The fields' own bounds, with room for JSON escapes and spacing (a checkpoint is measured
 * re-serialized): anything larger is refused unread.
 */
const MAX_BODY_BYTES = 4 * (MAX_CHECKPOINT_BYTES + MAX_PROGRESS_MESSAGE_BYTES);

export async function postHeartbeat(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const parsed = parseHeartbeat(event.body as unknown);
  if (!parsed.ok) throw new ValidationError(parsed.problems);
  const answer = await heartbeatRun(callbackDeps(), callbackTokenOf(event), parsed.heartbeat);
  return json(200, {
    cancelRequested: answer.cancelRequested,
    heartbeatDeadline: new Date(answer.heartbeatDeadline).toISOString(),
  });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(postHeartbeat)
  .use(httpErrors())
  .use(callbackBody(heartbeatSchema, MAX_BODY_BYTES));
