/** GET /v1/health — answers 200 when the jobs table is reachable, 503 otherwise. No token needed. */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { logger } from '../logger.ts';
import { jobRepository } from '../wiring.ts';
import { json } from './responses.ts';

export async function handler(): Promise<APIGatewayProxyResult> {
  try {
    // A point read of a key that never exists: proves table access at the cost of one read.
    await jobRepository().get('__health__', '__health__');
    return json(200, { status: 'ok', checks: { jobsTable: 'ok' } });
  } catch (error) {
    logger.error('health check failed', { error: error as Error });
    return json(503, { status: 'unavailable', checks: { jobsTable: 'unreachable' } });
  }
}
