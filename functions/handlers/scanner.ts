/** The scanner: EventBridge invokes it every minute to materialize due occurrences. */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { scanDueJobs } from '#core/use-cases/scan-due-jobs';
import { logger } from './logger.ts';
import { materializeDeps } from './wiring.ts';

export async function scan(): Promise<{ materialized: number }> {
  const started = Date.now();
  const result = await scanDueJobs(materializeDeps(), started);
  logger.info('scan finished', { ...result, durationMs: Date.now() - started });
  return { materialized: result.runsCreated };
}

export const handler = middy(scan).use(injectLambdaContext(logger));
