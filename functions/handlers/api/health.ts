/**
 * GET /v1/health — public, and cheap for anyone but the operator, so a flood of health calls
 * costs no DynamoDB or SQS request:
 *
 * - Without the admin token (no token, a tenant's token, anything else): a liveness answer,
 *   200 `{ "status": "ok" }`, from memory. It says the API answers, nothing about what it uses.
 * - With the admin token (`Authorization: Bearer <admin token>`, checked in memory: this route has
 *   no gateway authorizer): the full check. 200 when everything the executor and the scanner
 *   depend on answers: the jobs, runs and tenants tables, the dispatch queue, and a scanner
 *   heartbeat (which also reads the metrics table) no older than SCANNER_HEARTBEAT_MAX_AGE_SECONDS
 *   (default 180). Otherwise 503, with each failing check named; a scanner shard whose latest pass
 *   failed makes the heartbeat check `failing`, and the answer names those shards (`failingShards`).
 *   Checks run in parallel, each cut off after CHECK_TIMEOUT_MS. One check answers every admin
 *   call of this process for FULL_CHECK_CACHE_MS (`checkedAt` says when it was taken), and calls
 *   that arrive while a check runs wait for that one.
 * - `?deep=true` asks for the full check taken now (cache bypassed, then refreshed): admin token
 *   only, anyone else gets 401 — a monitor that asks for the full check must never be told `ok`
 *   by the liveness answer.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { intEnv } from '#adapters/environment';
import { OBSERVABILITY_ENV } from '#adapters/observability-environment';
import { PRIORITIES } from '#core/priority';
import { carriesAdminToken } from '../admin-token.ts';
import { headerOf } from '../header-of.ts';
import { logger } from '../logger.ts';
import { instrumented } from '../observability.ts';
import { monitoredQueueStats, scannerHeartbeats, tableProbes } from '../wiring.ts';
import { corsHeaders } from './cors.ts';
import { type Probe, runChecks } from './health-checks.ts';
import { heartbeatStateOf } from './health-heartbeats.ts';
import { errorResponse, json } from './responses.ts';

const DEFAULT_HEARTBEAT_MAX_AGE_SECONDS = 180;
/** Well inside the 10 s function timeout; a healthy DynamoDB or SQS call takes milliseconds. */
const CHECK_TIMEOUT_MS = 2_000;
/** How long one full check answers every admin call of this process. */
export const FULL_CHECK_CACHE_MS = 5_000;

interface FullCheck {
  statusCode: 200 | 503;
  body: Record<string, unknown>;
}

/** The latest full check of this process (settled or in progress) and when it started. */
let latest: { startedAt: number; check: Promise<FullCheck> } | undefined;

export async function health(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const admin = carriesAdminToken(headerOf(event, 'authorization'));
  const deep = event.queryStringParameters?.deep === 'true';
  if (!admin) {
    if (deep) return errorResponse(401, 'UNAUTHORIZED', 'The full health check needs the admin token');
    return json(200, { status: 'ok' });
  }
  const now = Date.now();
  if (deep || latest === undefined || now - latest.startedAt >= FULL_CHECK_CACHE_MS) {
    latest = { startedAt: now, check: fullCheck() };
  }
  const { statusCode, body } = await latest.check;
  return json(statusCode, body);
}

async function fullCheck(): Promise<FullCheck> {
  const checkedAt = new Date().toISOString();
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
      // Every lane's dispatch queue: runs of a lane whose queue is gone would never be called.
      dispatchQueue: async () => {
        await Promise.all(PRIORITIES.map((lane) => monitoredQueueStats().dispatch(lane)));
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
  return {
    statusCode: healthy ? 200 : 503,
    body: {
      status: healthy ? 'ok' : 'unavailable',
      checks,
      failing,
      // Which shards: the errors themselves stay in the logs and the admin view (GET /v1/monitoring/system).
      ...(failingShards.length > 0 ? { failingShards } : {}),
      checkedAt,
    },
  };
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(health).use(corsHeaders());
