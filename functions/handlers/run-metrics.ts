/**
 * The run metrics of the executor and the dead-letter handler: one count per attempt outcome and
 * the latencies that tell Chronos' delay (start lag) from the target's (HTTP duration).
 */

import type { SQSRecord } from 'aws-lambda';
import type { DeliveryTiming } from '#core/delivery-stamp';
import type { Run } from '#core/model';
import type { RunOutcome } from '#core/ports';
import { dueAtOf } from '#core/run-timing';
import { addRunMetric, MetricUnit } from './observability.ts';

export const RUN_METRICS = {
  succeeded: 'RunsSucceeded',
  /** Failed for good: no further attempt. */
  failed: 'RunsFailed',
  /** Failed, another attempt follows. */
  retried: 'RunsRetried',
  deadLettered: 'RunsDeadLettered',
  skipped: 'RunsSkipped',
  startLag: 'StartLagMs',
  httpDuration: 'HttpDurationMs',
} as const;

/** Counts the outcome of a call and records its start lag and duration. */
export function recordCallMetrics(
  run: Pick<Run, 'tenantId' | 'scheduledFor' | 'availableAt'>,
  outcome: RunOutcome,
): void {
  const tenant = run.tenantId;
  if (outcome.status === 'SUCCEEDED') addRunMetric(RUN_METRICS.succeeded, MetricUnit.Count, 1, tenant);
  else if (outcome.status === 'SKIPPED') addRunMetric(RUN_METRICS.skipped, MetricUnit.Count, 1, tenant);
  else if (outcome.nextAttemptAt !== undefined) addRunMetric(RUN_METRICS.retried, MetricUnit.Count, 1, tenant);
  else addRunMetric(RUN_METRICS.failed, MetricUnit.Count, 1, tenant);
  if (outcome.startedAt !== undefined) {
    addRunMetric(RUN_METRICS.startLag, MetricUnit.Milliseconds, Math.max(0, outcome.startedAt - dueAtOf(run)), tenant);
  }
  if (outcome.durationMs !== undefined) {
    addRunMetric(RUN_METRICS.httpDuration, MetricUnit.Milliseconds, outcome.durationMs, tenant);
  }
}

/** SQS's timestamps of a record (Lambda passes them as strings of epoch ms). */
export function deliveryTimingOf(record: SQSRecord): DeliveryTiming {
  const ms = (value: string | undefined) => (value && /^\d+$/.test(value) ? Number(value) : undefined);
  const sentAt = ms(record.attributes?.SentTimestamp);
  const firstReceivedAt = ms(record.attributes?.ApproximateFirstReceiveTimestamp);
  return {
    ...(sentAt === undefined ? {} : { sentAt }),
    ...(firstReceivedAt === undefined ? {} : { firstReceivedAt }),
  };
}
