/**
 * GET /v1/monitoring/stats?window=5m|1h|24h — the caller's jobs by status, runs by status, success
 * and error rates, start-lag and duration percentiles and dead letters over the window, from the
 * aggregates the completion handler keeps (two reads, never a table scan). The admin scope sees
 * all tenants, or one with `tenantId=`.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { monitoringStats, STATS_WINDOWS, type StatsWindow } from '#core/metrics/monitoring-stats';
import { ALL_TENANTS } from '#core/metrics/ports';
import { instrumented } from '../observability.ts';
import { jobStatusCounts, runAggregates } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { QueryReader } from './query-params.ts';
import { queryNames, STATS_QUERY, TENANT_ID_MAX_LENGTH } from './query-schemas.ts';
import { json } from './responses.ts';
import { scopeOf } from './scope.ts';

const WINDOWS = Object.keys(STATS_WINDOWS) as StatsWindow[];

export async function getMonitoringStats(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const caller = scopeOf(event);
  const query = new QueryReader(event, queryNames(STATS_QUERY, caller.admin));
  const window = query.oneOf('window', WINDOWS) ?? '1h';
  const tenant = caller.admin ? query.text('tenantId', TENANT_ID_MAX_LENGTH) : undefined;
  query.done();
  const scope = caller.admin ? (tenant ?? ALL_TENANTS) : caller.tenantId;
  const stats = await monitoringStats(
    { aggregates: runAggregates(), jobCounts: jobStatusCounts() },
    scope,
    window,
    Date.now(),
  );
  return json(200, stats);
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(getMonitoringStats).use(httpErrors());
