/**
 * GET /v1/monitoring/timeseries?window=1h|24h — the caller's finished runs by status, with duration
 * and start-lag percentiles, per minute over an hour or per quarter hour over a day, every step
 * present (one Query of the minute buckets the completion handler keeps). The admin scope sees all
 * tenants, or one with `tenantId=`, as with the stats.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { monitoringTimeseries, TIMESERIES_WINDOWS, type TimeseriesWindow } from '#core/metrics/monitoring-timeseries';
import { ALL_TENANTS } from '#core/metrics/ports';
import { instrumented } from '../observability.ts';
import { runAggregates } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { QueryReader } from './query-params.ts';
import { queryNames, TENANT_ID_MAX_LENGTH, TIMESERIES_QUERY } from './query-schemas.ts';
import { json } from './responses.ts';
import { scopeOf } from './scope.ts';

const WINDOWS = Object.keys(TIMESERIES_WINDOWS) as TimeseriesWindow[];

export async function getMonitoringTimeseries(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const caller = scopeOf(event);
  const query = new QueryReader(event, queryNames(TIMESERIES_QUERY, caller.admin));
  const window = query.oneOf('window', WINDOWS) ?? '1h';
  const tenant = caller.admin ? query.text('tenantId', TENANT_ID_MAX_LENGTH) : undefined;
  query.done();
  const scope = caller.admin ? (tenant ?? ALL_TENANTS) : caller.tenantId;
  return json(200, await monitoringTimeseries({ aggregates: runAggregates() }, scope, window, Date.now()));
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(getMonitoringTimeseries).use(
  httpErrors(),
);
