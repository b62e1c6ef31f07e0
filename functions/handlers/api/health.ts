/**
 * GET /v1/health — no token needed. 200 when everything the executor and the scanner depend on
 * answers: the jobs, runs and tenants tables, the dispatch queue, and a scanner heartbeat (which
 * also reads the metrics table) no older than SCANNER_HEARTBEAT_MAX_AGE_SECONDS (default 180).
 * Otherwise 503, with each failing check named; a scanner shard whose latest pass failed makes the
 * heartbeat check `failing`, and the answer names those shards (`failingShards`). Checks run in parallel, each cut off after
 * CHECK_TIMEOUT_MS, so the answer stays fast even when a dependency hangs. `?deep=true`, the
 * former opt-in for the full check, is still accepted and changes nothing.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { intEnv } from '#adapters/environment';
import { OBSERVABILITY_ENV } from '#adapters/observability-environment';
import { logger } from '../logger.ts';
import { instrumented } from '../observability.ts';
import { monitoredQueueStats, scannerHeartbeats, tableProbes } from '../wiring.ts';
import { type Probe, runChecks } from './health-checks.ts';
import { heartbeatStateOf } from './health-heartbeats.ts';
import { json } from './responses.ts';

const DEFAULT_HEARTBEAT_MAX_AGE_SECONDS = 180;
/** Well inside the 10 s function timeout; a healthy DynamoDB or SQS call takes milliseconds. */
const CHECK_TIMEOUT_MS = 2_000;

export async function health(_event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const maxAgeMs = intEnv(OBSERVABILITY_ENV.heartbeatMaxAgeSeconds, DEFAULT_HEARTBEAT_MAX_AGE_SECONDS) * 1000;
  // jobsTable, runsTable, tenantsTable: one probe each.
  const tableChecks = Object.fromEntries(
    Object.entries(tableProbes()).map(([table, probe]): [string, Probe] => [
      `${table}Table`,
      async (signal) => {
        await probe(signal);
        return 'ok';
      },
    ]),
  );
  let failingShards: string[] = [];
  const { checks, failing } = await runChecks(
    {
      ...tableChecks,
      dispatchQueue: async () => {
        await monitoredQueueStats().dispatch();
        return 'ok';
      },
      scannerHeartbeat: async () => {
        const state = heartbeatStateOf(await scannerHeartbeats().read(), Date.now(), maxAgeMs);
        failingShards = state.failingShards;
        return state.state;
      },
    },
    CHECK_TIMEOUT_MS,
    (check, error) => logger.error('health check failed', { check, error: error as Error }),
  );
  const healthy = failing.length === 0;
  return json(healthy ? 200 : 503, {
    status: healthy ? 'ok' : 'unavailable',
    checks,
    failing,
    // Which shards: the errors themselves stay in the logs and the admin view (GET /v1/monitoring/system).
    ...(failingShards.length > 0 ? { failingShards } : {}),
  });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(health);
