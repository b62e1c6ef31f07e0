/**
 * The scanner: EventBridge invokes it every minute to materialize due occurrences, and to sweep
 * runs stuck past their lease or parked beyond the SQS delay limit.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { scanDueJobs } from '#core/use-cases/scan-due-jobs';
import { sweepRuns } from '#core/use-cases/sweep-runs';
import { logger } from './logger.ts';
import { materializeDeps, runDispatcher, runRepository, schedulingConfig } from './wiring.ts';

export async function scan(): Promise<{ materialized: number; swept: number }> {
  const started = Date.now();
  const [result, sweep] = await Promise.all([
    scanDueJobs(materializeDeps(), started),
    sweepRuns({ runs: runRepository(), dispatcher: runDispatcher(), config: schedulingConfig() }, started),
  ]);
  logger.info('scan finished', {
    ...result,
    sweptFound: sweep.found,
    sweptResent: sweep.resent,
    durationMs: Date.now() - started,
  });
  return { materialized: result.runsCreated, swept: sweep.resent };
}

export const handler = middy(scan).use(injectLambdaContext(logger));
