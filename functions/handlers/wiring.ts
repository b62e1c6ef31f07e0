/**
 * Builds the adapters every handler needs from the environment, once per process (Lambda reuses
 * them across invocations). Each getter is lazy so a function only needs the variables of the
 * resources it actually uses.
 */

import { createDocumentClient, createSqsClient } from '#adapters/aws-clients';
import { DynamoJobRepository } from '#adapters/dynamodb/job-repository';
import { DynamoJobStatusCounts } from '#adapters/dynamodb/job-status-counts';
import { DynamoRunAggregates } from '#adapters/dynamodb/run-aggregates';
import { DynamoRunRepository } from '#adapters/dynamodb/run-repository';
import { DynamoScannerHeartbeats } from '#adapters/dynamodb/scanner-heartbeats';
import { ENV, intEnv, requiredEnv } from '#adapters/environment';
import { FetchHttpInvoker } from '#adapters/http/invoker';
import { OBSERVABILITY_ENV } from '#adapters/observability-environment';
import { outboundRulesFromEnv } from '#adapters/outbound-rules';
import { signingKeysFromEnv } from '#adapters/signing-keys';
import { queueStats } from '#adapters/sqs/queue-stats';
import { SqsRunDispatcher } from '#adapters/sqs/run-dispatcher';
import { DEFAULT_LEASE_MARGIN_SECONDS } from '#core/limits';
import type { JobStatusCounts } from '#core/metrics/ports';
import type { MaterializeDeps } from '#core/use-cases/materialize-occurrences';
import { logger } from './logger.ts';

function once<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => {
    value ??= build();
    return value;
  };
}

const documentClient = once(createDocumentClient);
const sqsClient = once(createSqsClient);

export const jobRepository = once(() => new DynamoJobRepository(documentClient(), requiredEnv(ENV.jobsTable)));
export const runRepository = once(
  () => new DynamoRunRepository(documentClient(), requiredEnv(ENV.runsTable), schedulingConfig().shardCount),
);
export const runDispatcher = once(() => new SqsRunDispatcher(sqsClient(), requiredEnv(ENV.dispatchQueueUrl)));
/** Which targets may be called (loopback only with ALLOW_LOOPBACK_TARGETS=true): job creation and calls agree. */
export const outboundRules = once(outboundRulesFromEnv);
export const httpInvoker = once(
  () => new FetchHttpInvoker(intEnv(ENV.responseExcerptBytes, 4096), { rules: outboundRules() }),
);
/** Secrets that sign every call (SIGNING_SECRET_CURRENT, SIGNING_SECRET_NEXT). */
export const signingKeys = once(() => signingKeysFromEnv());

/** Scheduling configuration shared by the scanner and job creation. */
export const schedulingConfig = once(() => ({
  horizonMs: intEnv(ENV.scanHorizonSeconds, 90) * 1000,
  retentionDays: intEnv(ENV.runRetentionDays, 30),
  shardCount: intEnv(ENV.dueShardCount, 16),
}));

export const leaseMarginMs = once(() => intEnv(ENV.leaseMarginSeconds, DEFAULT_LEASE_MARGIN_SECONDS) * 1000);

/** What materializing occurrences needs (scanner and create-job). */
export const materializeDeps = once(
  (): MaterializeDeps => ({
    jobs: jobRepository(),
    runs: runRepository(),
    dispatcher: runDispatcher(),
    config: schedulingConfig(),
  }),
);

// Monitoring (OBSERVABILITY_ENV): the metrics table and the queues it reports on.
const metricsTable = () => requiredEnv(OBSERVABILITY_ENV.metricsTable);
export const runAggregates = once(() => new DynamoRunAggregates(documentClient(), metricsTable()));
export const scannerHeartbeats = once(() => new DynamoScannerHeartbeats(documentClient(), metricsTable()));
/** Read side of the job-status counters (the stats endpoint). */
export const jobStatusCounts = once(() => new DynamoJobStatusCounts(documentClient(), metricsTable()));
/**
 * Write side, for use cases that change a job's status: best effort, because the status change
 * has already been written when the counters move; a failed move is logged, never the request's error.
 */
export const jobCountsUpdater = once(
  (): JobStatusCounts => ({
    read: (scope) => jobStatusCounts().read(scope),
    shift: async (tenantId, from, to) => {
      try {
        await jobStatusCounts().shift(tenantId, from, to);
      } catch (error) {
        logger.error('job-status counters not updated', { tenantId, from, to, error: error as Error });
      }
    },
  }),
);
export const monitoredQueueStats = once(() => ({
  dispatch: () => queueStats(sqsClient(), requiredEnv(OBSERVABILITY_ENV.monitoredDispatchQueueUrl)),
  deadLetter: () => queueStats(sqsClient(), requiredEnv(OBSERVABILITY_ENV.monitoredDeadLetterQueueUrl)),
}));
