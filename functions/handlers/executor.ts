/**
 * The executor: consumes the dispatch queue in batches, one record per run. Records are processed
 * in parallel and failures are reported per item, so one slow or failing target never holds up or
 * replays the others. As a record's run is claimed, its message is hidden until the lease ends
 * (usually one ChangeMessageVisibilityBatch per invocation): if this executor dies, the message
 * comes back then and the next executor takes the run over or records it as lost.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { warmUpHttpClient } from '#adapters/http/warm-up';
import type { BatchLeaseVisibility } from '#adapters/sqs/batch-lease-visibility';
import { systemClock } from '#adapters/system-clock';
import { ReleaseSpread } from '#core/release-spread';
import {
  type ExecuteRunDeps,
  executeRun,
  FailedBeforeCallError,
  RECHECK_SPREAD,
  RunBusyError,
} from '#core/use-cases/execute-run';
import { MalformedMessageError, parseDispatchMessage } from './dispatch-message.ts';
import { logger } from './logger.ts';
import { addRunMetric, instrumentedWithMetrics, MetricUnit } from './observability.ts';
import { redeliveryBackoffSeconds } from './redelivery-backoff.ts';
import { deliveryTimingOf, RUN_METRICS, receiveCountOf, recordCallMetrics } from './run-metrics.ts';
import { readOrSetAside } from './set-aside.ts';
import { patientRunSlots, runCapOf, sendBackLater } from './tenant-run-cap.ts';
import {
  asyncRunStore,
  callbackBaseUrl,
  callbackKeys,
  executorJobRepository,
  executorMaxCallsInFlight,
  flowKeys,
  httpInvoker,
  leaseMarginMs,
  leaseVisibilityOf,
  runDispatcher,
  runRepository,
  runSlots,
  schedulingConfig,
  secretCipher,
  signingKeys,
  workflowRunDeps,
} from './wiring.ts';

const processor = new BatchProcessor(EventType.SQS);

// At start-up, not in the first run's call: a fresh executor's first call would start late (warm-up.ts).
if (!(await warmUpHttpClient()))
  logger.warn('HTTP client not warmed up: the first call of this executor may start late');

/** The keys every log line about a run carries (issue #7): passed per line, no child logger per record. */
type RunKeys = { tenantId: string; jobId: string; runId: string; attempt: number };

/** What every run of this process shares: built on the first record, then reused. */
let shared: Omit<ExecuteRunDeps, 'config' | 'redelivery'> | undefined;
function sharedDeps(): Omit<ExecuteRunDeps, 'config' | 'redelivery'> {
  shared ??= {
    jobs: executorJobRepository(),
    runs: runRepository(),
    invoker: httpInvoker(),
    signingKeys: signingKeys(),
    clock: systemClock,
    random: Math.random,
    slots: {
      slots: patientRunSlots(runSlots()),
      capOf: runCapOf,
      fleetMaxCallsInFlight: executorMaxCallsInFlight(),
    },
    secrets: secretCipher(),
    async: {
      store: asyncRunStore(),
      keys: callbackKeys(),
      // Read when an async job is first called: only functions that make such calls need it.
      baseUrl: callbackBaseUrl,
      shardCount: schedulingConfig().shardCount,
    },
    workflows: workflowRunDeps(),
    flow: { keys: flowKeys(), dispatcher: runDispatcher() },
    recheckSpread: new ReleaseSpread(RECHECK_SPREAD),
  };
  return shared;
}

function recordHandlerFor(owner: string, visibility: BatchLeaseVisibility) {
  const config = { leaseMarginMs: leaseMarginMs(), owner };
  return async (record: SQSRecord) => {
    let keys: RunKeys | undefined;
    const redelivery = visibility.forMessage(record, (reason) =>
      logger.warn('message not hidden until the lease ends: a crash is recovered after the queue visibility timeout', {
        ...keys,
        reason,
      }),
    );
    try {
      const message = readOrSetAside(
        'executor',
        record,
        () => parseDispatchMessage(record),
        (error) => error instanceof MalformedMessageError,
      );
      if (!message) return;
      keys = { tenantId: message.tenantId, jobId: message.jobId, runId: message.runId, attempt: message.attempt };
      /** Nothing was called and no claim is held: back within seconds, not after the queue's half hour. */
      const comeBackSoon = (error: unknown): never => {
        const seconds = comeBackDelaySeconds(record);
        redelivery.comeBackIn(seconds);
        logger.warn('run not called: failed before the call; its message comes back shortly', {
          ...keys,
          comeBackInSeconds: seconds,
          error: (error instanceof FailedBeforeCallError ? error.cause : error) as Error,
        });
        throw error;
      };
      const result = await executeRun({ ...sharedDeps(), config, redelivery }, message, deliveryTimingOf(record)).catch(
        (error: unknown) => (error instanceof FailedBeforeCallError ? comeBackSoon(error) : Promise.reject(error)),
      );
      if (result.kind === 'leased-elsewhere') throw new RunBusyError(message.runId);
      if (result.kind === 'throttled') {
        // The tenant is at its in-flight cap: back to the queue for a second or two. Should that
        // send fail, the message itself comes back as shortly.
        await sendBackLater(message).catch(comeBackSoon);
        logger.debug('run deferred: tenant at its in-flight cap', keys);
        return;
      }
      if (result.kind === 'waiting') {
        // Waiting for its flow-control key: a fresh message delayed to when the key lets it go, not
        // a batch-item failure (no receive counted, no retry used; the run stays QUEUED).
        await runDispatcher()
          .dispatch([{ message, releaseAt: result.until }])
          .catch(comeBackSoon);
        logger.debug('run waiting for its flow-control key', { ...keys, reason: result.reason, until: result.until });
        return;
      }
      if (result.kind === 'accepted') {
        addRunMetric(RUN_METRICS.accepted, MetricUnit.Count, 1, message.tenantId);
        logger.info('run taken by its target (202): it ends through its callbacks', {
          ...keys,
          acceptance: result.acceptance.kind,
        });
        return;
      }
      if (result.kind === 'called') {
        recordCallMetrics(result.run, result.outcome);
        // A success is in the run's history and the metrics already: at INFO its line (≈ 0.5 KB)
        // would be paid for in CloudWatch Logs and CPU on every execution, for nothing new.
        const level = result.outcome.status === 'SUCCEEDED' ? 'debug' : 'info';
        logger[level]('run finished', {
          ...keys,
          status: result.outcome.status,
          httpStatus: result.outcome.httpStatus,
          durationMs: result.outcome.durationMs,
        });
        if (result.outcomeReduced !== undefined) {
          logger.warn('run outcome stored reduced: the store refused it whole', {
            ...keys,
            outcomeReduced: result.outcomeReduced,
          });
        }
      } else {
        if (result.kind === 'skipped') addRunMetric(RUN_METRICS.skipped, MetricUnit.Count, 1, message.tenantId);
        if (result.kind === 'lost') addRunMetric(RUN_METRICS.failed, MetricUnit.Count, 1, message.tenantId);
        logger.info(`run not called: ${result.kind}`, keys);
      }
    } finally {
      redelivery.settle();
    }
  };
}

/**
 * How long a message that failed before its call stays away: 2 s on its first receive, then 8, 32,
 * 128... (at most 15 min). The first retry is quick (a throttled read, a KMS hiccup); a lasting
 * outage is looked at less and less often, and reaches the dead-letter queue after the queue's
 * maxReceiveCount receives (five: about three minutes) rather than in seconds.
 */
export function comeBackDelaySeconds(record: SQSRecord): number {
  return redeliveryBackoffSeconds(receiveCountOf(record) ?? 1, 2);
}

export async function execute(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  const visibility = leaseVisibilityOf(event.Records);
  try {
    return await processPartialResponse(event, recordHandlerFor(context.awsRequestId, visibility), processor, {
      context,
    });
  } finally {
    // The change is made in the background while the calls run; the invocation must not end first.
    await visibility.done();
  }
}

export const handler = instrumentedWithMetrics(execute);
