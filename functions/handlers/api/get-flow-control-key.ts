/** GET /v1/flow-control/{key} — the key's limits (most recently written by a job or workflow naming it) and its runs now. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { NotFoundError } from '#core/errors';
import { FLOW_CONTROL_BOUNDS } from '#core/flow-control/flow-control-settings';
import { flowKeyCounts } from '#core/flow-control/flow-gate';
import { iso } from '#core/views';
import { instrumented } from '../observability.ts';
import { flowKeys } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';

/** The `{key}` path parameter (decoded by the gateway); one no job could name is simply not found. */
function flowKeyOf(event: APIGatewayProxyEvent): string {
  const key = event.pathParameters?.key;
  const length = key === undefined ? 0 : [...key].length;
  const { min, max } = FLOW_CONTROL_BOUNDS.keyLength;
  if (key === undefined || length < min || length > max) throw new NotFoundError('flow-control key');
  return key;
}

export async function getFlowControlKey(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const tenantId = tenantOf(event);
  const key = flowKeyOf(event);
  const state = await flowKeys().read(tenantId, key);
  // A key only a run's gate wrote (its job's limits write failed) still has limits: shown too.
  if (!state) throw new NotFoundError(`flow-control key ${key}`);
  const now = Date.now();
  return json(200, {
    key: state.key,
    ...(state.ratePerSecond === undefined ? {} : { ratePerSecond: state.ratePerSecond }),
    ...(state.parallelism === undefined ? {} : { parallelism: state.parallelism }),
    ...flowKeyCounts(state, now),
    updatedAt: iso(state.updatedAt ?? now),
  });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(getFlowControlKey).use(httpErrors());
