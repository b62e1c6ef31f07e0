/**
 * POST /v1/callbacks/{token}/complete — the worker reports its async run's end, `succeeded` (with
 * `output`) or `failed` (with `error`, `retryable`): retried per the job's retry policy as a
 * synchronous failure would be (core/use-cases/async/callbacks.ts). Idempotent: the same
 * completion again answers the run as it ended; any other after the end is 409 RUN_ENDED, as is
 * one from an older attempt. Accepted before the executor recorded the 202. Public: the token is
 * the credential.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { MAX_COMPLETION_ERROR_BYTES, MAX_OUTPUT_BYTES, parseCompletion } from '#core/async/completion-body';
import { ValidationError } from '#core/errors';
import { completeAsyncRun } from '#core/use-cases/async/callbacks';
import { runView } from '#core/views';
import completeSchema from '#schemas/callback-complete.json' with { type: 'json' };
import { logger } from '../logger.ts';
import { instrumented } from '../observability.ts';
import { callbackDeps } from '../wiring.ts';
import { callbackBody } from './callback-body.ts';
import { callbackTokenOf } from './callback-token.ts';
import { httpErrors } from './http-errors.ts';
import { json } from './responses.ts';

/** The fields' own bounds, with room for JSON escapes and spacing; anything larger is refused unread. */
const MAX_BODY_BYTES = 2 * (MAX_OUTPUT_BYTES + 6 * MAX_COMPLETION_ERROR_BYTES);

export async function postCompletion(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const parsed = parseCompletion(event.body as unknown);
  if (!parsed.ok) throw new ValidationError(parsed.problems);
  const run = await completeAsyncRun(callbackDeps(), callbackTokenOf(event), parsed.completion);
  logger.info('async run completed', { runId: run.runId, status: run.status });
  return json(200, runView(run));
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(postCompletion)
  .use(httpErrors())
  .use(callbackBody(completeSchema, MAX_BODY_BYTES));
