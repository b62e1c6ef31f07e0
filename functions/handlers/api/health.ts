/**
 * GET /v1/health — no token needed. Plain: 200 when the jobs table answers, 503 otherwise (a
 * cheap liveness probe). `?deep=true` also checks the metrics table, the dispatch queue and that
 * the scanner's newest heartbeat is fresh (SCANNER_HEARTBEAT_MAX_AGE_SECONDS, default 180).
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { intEnv } from '#adapters/environment';
import { OBSERVABILITY_ENV } from '#adapters/observability-environment';
import { logger } from '../logger.ts';
import { instrumented } from '../observability.ts';
import { jobRepository, monitoredQueueStats, scannerHeartbeats } from '../wiring.ts';
import { json } from './responses.ts';

const DEFAULT_HEARTBEAT_MAX_AGE_SECONDS = 180;

async function check(name: string, probe: () => Promise<string>): Promise<[string, string]> {
  try {
    return [name, await probe()];
  } catch (error) {
    logger.error('health check failed', { check: name, error: error as Error });
    return [name, 'unreachable'];
  }
}

export async function health(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const deep = event?.queryStringParameters?.deep === 'true';
  const maxAgeMs = intEnv(OBSERVABILITY_ENV.heartbeatMaxAgeSeconds, DEFAULT_HEARTBEAT_MAX_AGE_SECONDS) * 1000;
  const checks = await Promise.all([
    // A point read of a key that never exists: proves table access at the cost of one read.
    check('jobsTable', async () => {
      await jobRepository().get('__health__', '__health__');
      return 'ok';
    }),
    ...(deep
      ? [
          check('dispatchQueue', async () => {
            await monitoredQueueStats().dispatch();
            return 'ok';
          }),
          check('scannerHeartbeat', async () => {
            const newest = Math.max(0, ...(await scannerHeartbeats().read()).map((beat) => beat.at));
            if (newest === 0) return 'missing';
            return Date.now() - newest <= maxAgeMs ? 'ok' : 'stale';
          }),
        ]
      : []),
  ]);
  const healthy = checks.every(([, state]) => state === 'ok');
  return json(healthy ? 200 : 503, {
    status: healthy ? 'ok' : 'unavailable',
    checks: Object.fromEntries(checks),
  });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(health);
