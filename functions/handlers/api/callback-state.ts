/**
 * GET /v1/callbacks/{token} — what a worker resumes from: its attempt, whether a cancel was
 * requested, and the occurrence's latest checkpoint from any attempt up to its own
 * (core/use-cases/async/callbacks.ts). Public: the token is the credential.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { callbackState } from '#core/use-cases/async/callbacks';
import { callbackStateView } from '#core/views';
import { instrumented } from '../observability.ts';
import { callbackDeps } from '../wiring.ts';
import { callbackTokenOf } from './callback-token.ts';
import { httpErrors } from './http-errors.ts';
import { json } from './responses.ts';

export async function getCallbackState(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const state = await callbackState(callbackDeps(), callbackTokenOf(event));
  return json(200, callbackStateView(state));
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(getCallbackState).use(httpErrors());
