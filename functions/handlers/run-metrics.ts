/**
 * The run metrics of the executor and the dead-letter handler: one count per attempt outcome and
 * the latencies that tell Chronos' delay (start lag) from the target's (HTTP duration).
 */

import type { SQSRecord } from 'aws-lambda';
import { EARLIEST_INSTANT, integerFromDigits, LATEST_INSTANT } from '#core/bounds';
import type { DeliveryTiming } from '#core/delivery-stamp';
import type { Run } from '#core/model';
import type { RunOutcome } from '#core/ports';
import { startableAtOf } from '#core/run-timing';
import { addRunMetric, MetricUnit } from './observability.ts';

export const RUN_METRICS = {
  succeeded: 'RunsSucceeded',
  /** Failed for good: no further attempt. */
  failed: 'RunsFailed',
  /** Failed, another attempt follows. */
  retried: 'RunsRetried',
  deadLettered: 'RunsDeadLettered',
  skipped: 'RunsSkipped',
  /** An async job's target took the work (202); the run ends through its callbacks. */
  accepted: 'RunsAccepted',
  startLag: 'StartLagMs',
  httpDuration: 'HttpDurationMs',
} as const;

/** Counts the outcome of a call and records its start lag (from when it could first start) and duration. */
export function recordCallMetrics(
  run: Pick<Run, 'tenantId' | 'scheduledFor' | 'availableAt' | 'createdAt'>,
  outcome: RunOutcome,
): void {
  const tenant = run.tenantId;
  if (outcome.status === 'SUCCEEDED') addRunMetric(RUN_METRICS.succeeded, MetricUnit.Count, 1, tenant);
  else if (outcome.status === 'SKIPPED') addRunMetric(RUN_METRICS.skipped, MetricUnit.Count, 1, tenant);
  else if (outcome.nextAttemptAt !== undefined) addRunMetric(RUN_METRICS.retried, MetricUnit.Count, 1, tenant);
  else addRunMetric(RUN_METRICS.failed, MetricUnit.Count, 1, tenant);
  if (outcome.startedAt !== undefined) {
    addRunMetric(
      RUN_METRICS.startLag,
      MetricUnit.Milliseconds,
      Math.max(0, outcome.startedAt - startableAtOf(run)),
      tenant,
    );
  }
  if (outcome.durationMs !== undefined) {
    addRunMetric(RUN_METRICS.httpDuration, MetricUnit.Milliseconds, outcome.durationMs, tenant);
  }
}

/** Largest receive count believed: SQS moves a message to its DLQ after a handful. */
const MAX_RECEIVE_COUNT = 1_000_000;

/**
 * SQS's timestamps of a record (Lambda passes them as strings of epoch ms). A value that is not an
 * instant in the stored range (bounds.ts) is left out, as if SQS had not sent it: it only feeds
 * timings, and must never reach a DynamoDB write as NaN or an unsafe number.
 */
export function deliveryTimingOf(record: SQSRecord): DeliveryTiming {
  const ms = (value: unknown) =>
    typeof value === 'string' ? integerFromDigits(value, EARLIEST_INSTANT, LATEST_INSTANT) : undefined;
  const sentAt = ms(record.attributes?.SentTimestamp);
  const firstReceivedAt = ms(record.attributes?.ApproximateFirstReceiveTimestamp);
  return {
    ...(sentAt === undefined ? {} : { sentAt }),
    ...(firstReceivedAt === undefined ? {} : { firstReceivedAt }),
  };
}

/** SQS's ApproximateReceiveCount of a record; undefined when missing or not a plausible count. */
export function receiveCountOf(record: SQSRecord): number | undefined {
  const value: unknown = record.attributes?.ApproximateReceiveCount;
  return typeof value === 'string' ? integerFromDigits(value, 1, MAX_RECEIVE_COUNT) : undefined;
}
