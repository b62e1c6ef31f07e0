/**
 * Builds the adapters every handler needs from the environment, once per process (Lambda reuses
 * them across invocations). Each getter is lazy so a function only needs the variables of the
 * resources it actually uses.
 */

import { createCloudWatchClient, createDocumentClient, createSqsClient } from '#adapters/aws-clients';
import { DynamoAdmittedJobs } from '#adapters/dynamodb/admitted-jobs';
import { DynamoAsyncRunStore } from '#adapters/dynamodb/async-run-store';
import { DynamoAsyncRunsInFlight } from '#adapters/dynamodb/async-runs-in-flight';
import { StoredCallbackKeys } from '#adapters/dynamodb/callback-key-store';
import { CoalescedJobReads, withCoalescedGets } from '#adapters/dynamodb/coalesced-job-reads';
import { DynamoCreateKeyRepository } from '#adapters/dynamodb/create-key-repository';
import { DynamoDispatchIntents } from '#adapters/dynamodb/dispatch-intent-store';
import { DynamoFlowKeys } from '#adapters/dynamodb/flow-keys';
import { DynamoJobAdmissions } from '#adapters/dynamodb/job-admissions';
import { DynamoJobRepository } from '#adapters/dynamodb/job-repository';
import { DynamoJobStatusCounts } from '#adapters/dynamodb/job-status-counts';
import { DynamoRunAggregates } from '#adapters/dynamodb/run-aggregates';
import { DynamoRunRepository } from '#adapters/dynamodb/run-repository';
import { DynamoRunSlots } from '#adapters/dynamodb/run-slots';
import { DynamoScannerHeartbeats } from '#adapters/dynamodb/scanner-heartbeats';
import { DynamoSigningSecretRepository } from '#adapters/dynamodb/signing-secret-repository';
import { JOBS_TABLE, RUNS_TABLE, TENANTS_TABLE } from '#adapters/dynamodb/table-definitions';
import { probeTable } from '#adapters/dynamodb/table-probe';
import { DynamoTenantRepository } from '#adapters/dynamodb/tenant-repository';
import { DynamoTriggerRateLimiter } from '#adapters/dynamodb/trigger-rate-limiter';
import { DynamoWorkflowRepository } from '#adapters/dynamodb/workflow-repository';
import { DynamoWorkflowRunStore } from '#adapters/dynamodb/workflow-run-store';
import { ENV, intEnv, listEnv, requiredEnv } from '#adapters/environment';
import { targetResolver } from '#adapters/http/guarded-lookup';
import { HttpTargetInvoker } from '#adapters/http/invoker';
import { OBSERVABILITY_ENV } from '#adapters/observability-environment';
import { outboundRulesFromEnv } from '#adapters/outbound-rules';
import { releaseSpreadFromEnv } from '#adapters/release-spread-from-env';
import { secretCipherFromEnv } from '#adapters/secrets/secret-cipher-from-env';
import { storedSigningKeys } from '#adapters/signing-keys';
import { BatchLeaseVisibility, type BatchMessage } from '#adapters/sqs/batch-lease-visibility';
import { SqsFailureNotices } from '#adapters/sqs/failure-notice-queue';
import { laneQueueUrlOfSource, laneQueueUrlsFromEnv } from '#adapters/sqs/lane-queues';
import { oldestMessageAges, queueNameOf } from '#adapters/sqs/oldest-message-age';
import { queueStats } from '#adapters/sqs/queue-stats';
import { SqsRunDispatcher } from '#adapters/sqs/run-dispatcher';
import { systemClock } from '#adapters/system-clock';
import { defaultQuotasFromEnv } from '#adapters/tenant-quotas';
import { DEFAULT_LEASE_MARGIN_SECONDS } from '#core/limits';
import { type JobStatusCounts, type JobStatusDeltas, shiftDeltas } from '#core/metrics/ports';
import { PRIORITIES, type Priority } from '#core/priority';
import { ReleaseSpread } from '#core/release-spread';
import { DEFAULT_SWEEP_GRACE_MS } from '#core/runs/send-runs';
import type { AdmissionDeps } from '#core/tenants/admit-job';
import { effectiveQuotas, type TenantQuotas } from '#core/tenants/quotas';
import type { CallbackDeps } from '#core/use-cases/async/callbacks';
import type { CancelRunDeps } from '#core/use-cases/async/cancel-run';
import type { CompleteRunDeps } from '#core/use-cases/complete-run';
import type { MaterializeDeps } from '#core/use-cases/materialize-occurrences';
import type { WorkflowRunDeps } from '#core/use-cases/workflows/workflow-run-deps';
import { lazily, once } from './built-once.ts';
import { logger } from './logger.ts';

const documentClient = once(createDocumentClient);
const sqsClient = once(createSqsClient);

export const jobRepository = once(() => new DynamoJobRepository(documentClient(), requiredEnv(ENV.jobsTable)));
/** Workflow heads and their versions' task items: items of the jobs table (core/workflows/stored.ts). */
export const workflowRepository = once(
  () => new DynamoWorkflowRepository(documentClient(), requiredEnv(ENV.jobsTable)),
);
/**
 * The executor's jobs: reads asked for in the same turn of the event loop go out in one
 * BatchGetItem (the records of a batch, the runs of a burst that wake together).
 */
export const executorJobRepository = once(() =>
  withCoalescedGets(jobRepository(), new CoalescedJobReads(documentClient(), requiredEnv(ENV.jobsTable))),
);
export const runRepository = once(
  () =>
    new DynamoRunRepository(
      documentClient(),
      requiredEnv(ENV.runsTable),
      schedulingConfig().shardCount,
      schedulingConfig().sweepGraceMs,
    ),
);
/** Each priority lane's dispatch queue (DISPATCH_QUEUE_URL is `normal`'s). */
export const laneQueueUrls = once(laneQueueUrlsFromEnv);
/** Sends runs to their lanes' queues; a failed send is logged and its runs left to the scanner's sweep (runs/send-runs.ts). */
export const runDispatcher = once(
  () =>
    new SqsRunDispatcher(sqsClient(), laneQueueUrls(), {
      spread: new ReleaseSpread(releaseSpreadFromEnv()),
      onUnsent: (messages, error) =>
        logger.warn('runs not sent; the sweep sends them once their release plus the grace has passed', {
          runIds: messages.map(({ message }) => message.runId),
          error: error as Error,
        }),
    }),
);
/**
 * Hides an executor batch's messages while their runs are leased (one instance per invocation),
 * each on the lane queue its record came from (its eventSourceARN).
 */
export const leaseVisibilityOf = (messages: BatchMessage[]) =>
  new BatchLeaseVisibility(
    sqsClient(),
    (message) => laneQueueUrlOfSource(laneQueueUrls(), message.eventSourceARN),
    messages,
  );
/** Which targets may be called (loopback only with ALLOW_LOOPBACK_TARGETS=true): job creation and calls agree. */
export const outboundRules = once(outboundRulesFromEnv);
/** Target names resolve through c-ares with its own timeout (TARGET_DNS_SERVERS, default the system's). */
export const httpInvoker = once(
  () =>
    new HttpTargetInvoker(intEnv(ENV.responseExcerptBytes, 4096), {
      rules: outboundRules(),
      resolve: targetResolver({ servers: listEnv(ENV.targetDnsServers) }),
    }),
);
/**
 * Each tenant's secrets that sign its calls (core/signing.ts signFor): sealed in the tenants table,
 * opened with the secrets cipher, cached per process briefly.
 */
export const signingKeys = once(() =>
  storedSigningKeys({ secrets: signingSecretRepository(), cipher: secretCipher() }),
);
/** The notifier's queue (completion sends failure notices; the notifier receives them). */
export const failureNotices = once(() => new SqsFailureNotices(sqsClient(), requiredEnv(ENV.failureNoticeQueueUrl)));
/** How long an onFailure endpoint may take, and the first backoff of a notice it did not take. */
export const notifierConfig = once(() => ({
  timeoutMs: intEnv(ENV.notifyTimeoutSeconds, 10) * 1000,
  backoffSeconds: intEnv(ENV.notifyBackoffSeconds, 10),
}));

/** Scheduling configuration shared by the scanner and job creation. */
export const schedulingConfig = once(() => ({
  horizonMs: intEnv(ENV.scanHorizonSeconds, 90) * 1000,
  retentionDays: intEnv(ENV.runRetentionDays, 30),
  shardCount: intEnv(ENV.dueShardCount, 16),
  sweepGraceMs: intEnv(ENV.sweepGraceSeconds, DEFAULT_SWEEP_GRACE_MS / 1000) * 1000,
}));

/**
 * What completing a run needs (the completion handler, and the stream-failure handler that
 * completes the runs of a batch the completion handler gave up on); `jobCounts` is the caller's
 * batch of job-status counter moves, `taskRunEnds` its batch of workflow task ends.
 */
export const completeRunDeps = (
  jobCounts?: JobStatusCounts,
  taskRunEnds?: CompleteRunDeps['taskRunEnds'],
): CompleteRunDeps => ({
  jobs: jobRepository(),
  runs: runRepository(),
  dispatcher: runDispatcher(),
  notices: failureNotices(),
  config: schedulingConfig(),
  ...(jobCounts ? { jobCounts } : {}),
  workflows: workflowRunDeps(),
  ...(taskRunEnds ? { taskRunEnds } : {}),
});

export const workflowRunStore = once(
  () => new DynamoWorkflowRunStore(documentClient(), requiredEnv(ENV.workflowRunsTable)),
);

/**
 * What the workflow-run use cases need (core/use-cases/workflows/). Each part is made at its first
 * use: the executor and the completion handler carry these deps for every run, but only a
 * workflow's runs use them, and the notifier's queue is the completion handler's alone.
 */
export const workflowRunDeps = once(
  (): WorkflowRunDeps => ({
    workflowRuns: lazily(workflowRunStore),
    runs: lazily(runRepository),
    jobs: lazily(jobRepository),
    dispatcher: lazily(runDispatcher),
    notices: lazily(failureNotices),
    get config() {
      return schedulingConfig();
    },
  }),
);

export const leaseMarginMs = once(() => intEnv(ENV.leaseMarginSeconds, DEFAULT_LEASE_MARGIN_SECONDS) * 1000);

/** What materializing occurrences needs (scanner and create-job). */
export const materializeDeps = once(
  (): MaterializeDeps => ({
    jobs: jobRepository(),
    runs: runRepository(),
    dispatcher: runDispatcher(),
    config: schedulingConfig(),
    // Creating, resuming and completing exhausted schedules move the job-status counters.
    jobCounts: jobCountsUpdater(),
  }),
);

// Monitoring (OBSERVABILITY_ENV): the metrics table and the queues it reports on.
const metricsTable = () => requiredEnv(OBSERVABILITY_ENV.metricsTable);
/** The scanner's dispatch intents (core/runs/dispatch-intent.ts), beside its heartbeats. */
export const dispatchIntents = once(() => new DynamoDispatchIntents(documentClient(), metricsTable()));
export const runAggregates = once(() => new DynamoRunAggregates(documentClient(), metricsTable()));
export const scannerHeartbeats = once(() => new DynamoScannerHeartbeats(documentClient(), metricsTable()));
/** Read side of the job-status counters (the stats endpoint; all tenants: summed over every tenant item). */
export const jobStatusCounts = once(
  () =>
    new DynamoJobStatusCounts(
      documentClient(),
      metricsTable(),
      // The tenants table only: the stats function is given no other (its route's access).
      new DynamoAdmittedJobs(documentClient(), tenantsTable()),
    ),
);
/** The counter items alone, for the write side: the functions that move counters have no tenants table. */
const jobStatusCounterItems = once(() => new DynamoJobStatusCounts(documentClient(), metricsTable()));
/**
 * Write side, for use cases that change a job's status: best effort, because the status change
 * has already been written when the counters move; a failed move is logged, never the request's error.
 */
export const jobCountsUpdater = once((): JobStatusCounts => {
  const add = async (tenantId: string, deltas: JobStatusDeltas) => {
    try {
      await jobStatusCounterItems().add(tenantId, deltas);
    } catch (error) {
      logger.error('job-status counters not updated', { tenantId, deltas, error: error as Error });
    }
  };
  return {
    read: (scope) => jobStatusCounts().read(scope),
    shift: (tenantId, from, to) => add(tenantId, shiftDeltas(from, to)),
    add,
  };
});
/** Each lane's dispatch and dead-letter queue (MONITORED_*: the unsuffixed pair is `normal`'s). */
const monitoredQueueUrls = once(
  (): Record<Priority, { dispatch: string; deadLetter: string }> => ({
    high: {
      dispatch: requiredEnv(OBSERVABILITY_ENV.monitoredDispatchQueueUrlHigh),
      deadLetter: requiredEnv(OBSERVABILITY_ENV.monitoredDeadLetterQueueUrlHigh),
    },
    normal: {
      dispatch: requiredEnv(OBSERVABILITY_ENV.monitoredDispatchQueueUrl),
      deadLetter: requiredEnv(OBSERVABILITY_ENV.monitoredDeadLetterQueueUrl),
    },
    low: {
      dispatch: requiredEnv(OBSERVABILITY_ENV.monitoredDispatchQueueUrlLow),
      deadLetter: requiredEnv(OBSERVABILITY_ENV.monitoredDeadLetterQueueUrlLow),
    },
  }),
);
/** Depth of a lane's queues (default the `normal` lane's). */
export const monitoredQueueStats = once(() => ({
  dispatch: (lane: Priority = 'normal') => queueStats(sqsClient(), monitoredQueueUrls()[lane].dispatch),
  deadLetter: (lane: Priority = 'normal') => queueStats(sqsClient(), monitoredQueueUrls()[lane].deadLetter),
}));
const cloudWatchClient = once(createCloudWatchClient);
/** Oldest-message age of every lane's two queues, from CloudWatch (named after their URLs), in one call. */
export const monitoredQueueAges = once(() => {
  const urls = monitoredQueueUrls();
  const names = Object.fromEntries(
    PRIORITIES.flatMap((lane) => [
      [`${lane}.dispatch`, queueNameOf(urls[lane].dispatch)],
      [`${lane}.deadLetter`, queueNameOf(urls[lane].deadLetter)],
    ]),
  ) as Record<`${Priority}.${'dispatch' | 'deadLetter'}`, string>;
  return { read: () => oldestMessageAges(cloudWatchClient(), names) };
});
/** Reachability of the tables the executor and the scanner need (GET /v1/health). */
export const tableProbes = once(() => {
  const probe = (name: string, keys: { partitionKey: string; sortKey: string }) => (signal?: AbortSignal) =>
    probeTable(documentClient(), { name: requiredEnv(name), ...keys }, signal);
  return {
    jobs: probe(ENV.jobsTable, JOBS_TABLE),
    runs: probe(ENV.runsTable, RUNS_TABLE),
    tenants: probe(ENV.tenantsTable, TENANTS_TABLE),
  };
});

// Tenants (TENANTS_TABLE): tokens for the authorizer, quotas, executor slots; secret headers.
const tenantsTable = () => requiredEnv(ENV.tenantsTable);
export const tenantRepository = once(() => new DynamoTenantRepository(documentClient(), tenantsTable()));
/** The stage's default quotas (QUOTA_* variables). */
export const defaultQuotas = once(defaultQuotasFromEnv);
/**
 * The create bucket, the active-job quota and the new job's place in the job-status counters, one
 * write per create (create-job, create-workflow).
 */
export const admissionDeps = once(
  (): AdmissionDeps => ({
    admissions: new DynamoJobAdmissions(documentClient(), tenantsTable(), requiredEnv(ENV.jobsTable)),
  }),
);
/** The Idempotency-Keys of POST /v1/jobs. */
export const createKeyRepository = once(() => new DynamoCreateKeyRepository(documentClient(), tenantsTable()));
/** The trigger bucket: runs created outside the schedule (trigger, PATCH, resume catch-up, re-drive). */
export const triggerRateLimiter = once(() => new DynamoTriggerRateLimiter(documentClient(), tenantsTable()));
/** The most calls the executor fleet can have in flight; unset: no bound, every run takes its slot. */
export const executorMaxCallsInFlight = once(() => intEnv(ENV.executorMaxCallsInFlight, Number.POSITIVE_INFINITY));
/** Per-tenant in-flight slots (executor). */
export const runSlots = once(() => new DynamoRunSlots(documentClient(), tenantsTable()));
/** Flow-control keys (core/flow-control/): written by job and workflow writes, passed by the executor. */
export const flowKeys = once(() => new DynamoFlowKeys(documentClient(), tenantsTable()));
/** Seals (create, update) and opens (executor) secret target headers. */
export const secretCipher = once(secretCipherFromEnv);
/** Tenants' sealed signing secrets (tenants table). */
export const signingSecretRepository = once(() => new DynamoSigningSecretRepository(documentClient(), tenantsTable()));

/**
 * How long a process uses a tenant's quotas before reading them again. They are set when the
 * tenant is made (`npm run admin`); reading them on every create, PATCH and trigger cost a read unit
 * each, for a value that does not change.
 */
const QUOTAS_CACHE_MS = 60_000;
const quotasRead = new Map<string, { quotas: Promise<TenantQuotas>; until: number }>();

/** A tenant's quotas: the stage defaults with the tenant's own overrides (read at most once a minute per process). */
export async function quotasOf(tenantId: string): Promise<TenantQuotas> {
  const now = Date.now();
  const cached = quotasRead.get(tenantId);
  if (cached && cached.until > now) return cached.quotas;
  const quotas = tenantRepository()
    .getTenant(tenantId)
    .then((tenant) => effectiveQuotas(defaultQuotas(), tenant?.quotas));
  // A failed read is not kept: the next request reads again.
  quotas.catch(() => {
    if (quotasRead.get(tenantId)?.quotas === quotas) quotasRead.delete(tenantId);
  });
  if (quotasRead.size >= 10_000) quotasRead.clear();
  quotasRead.set(tenantId, { quotas, until: now + QUOTAS_CACHE_MS });
  return quotas;
}

// Async runs (core/async/): their run items, the callback token keys, and what the callbacks, a
// run's cancel, the executor's 202 and the scanner's deadline pass decide with.
export const asyncRunStore = once(() => new DynamoAsyncRunStore(documentClient(), requiredEnv(ENV.runsTable)));
/** Sealed in the tenants table, opened with the secrets cipher (callback-key-store.ts); the executor makes the first. */
export const callbackKeys = once(() => new StoredCallbackKeys(documentClient(), tenantsTable(), secretCipher()));
/** The same keys as the callback routes see them: read only (no token exists before the first key). */
export const callbackKeysToOpen = once(
  () => new StoredCallbackKeys(documentClient(), tenantsTable(), secretCipher(), false),
);
/**
 * What deciding on an async run needs (a cancel, a job's cancel, the scanner's deadline pass):
 * the runs and jobs tables only. No callback keys: those functions open no token, and have no
 * tenants table to read them from.
 */
export const asyncRunDeps = once(
  (): CancelRunDeps => ({
    store: asyncRunStore(),
    runs: runRepository(),
    jobs: jobRepository(),
    clock: systemClock,
    random: Math.random,
    config: { shardCount: schedulingConfig().shardCount, leaseMarginMs: leaseMarginMs() },
  }),
);
/** The callback routes': the same, and the keys that open their tokens (the tenants table). */
export const callbackDeps = once((): CallbackDeps => ({ ...asyncRunDeps(), keys: callbackKeysToOpen() }));
/** Where async jobs' workers call back (`Chronos-Callback-Url`): the API's public base URL. */
export const callbackBaseUrl = once(() => requiredEnv(ENV.callbackBaseUrl).replace(/\/+$/, ''));

/** The system view's count of async runs in flight (the runs table's deadline index, per due shard). */
export const asyncRunsInFlight = once(
  () => new DynamoAsyncRunsInFlight(documentClient(), requiredEnv(ENV.runsTable), schedulingConfig().shardCount),
);
