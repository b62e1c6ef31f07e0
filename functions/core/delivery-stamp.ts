/**
 * What the executor adds to the outcome of a run it called: when SQS took the message and first
 * handed it out (from the message's own attributes, so the times are SQS's), and the job's SLA,
 * so the run's verdict and the aggregates never need to read the job again.
 */
import type { Job, Run } from './model.ts';
import { DEFAULT_SLA_SECONDS } from './run-timing.ts';

/** SQS timestamps of the message a run was executed from (epoch ms); absent when unknown. */
export interface DeliveryTiming {
  /** SentTimestamp: when SQS accepted the message. */
  sentAt?: number;
  /** ApproximateFirstReceiveTimestamp: when SQS first handed it to an executor. */
  firstReceivedAt?: number;
}

/** The run fields recorded with the outcome. */
export function deliveryStamp(
  job: Pick<Job, 'slaSeconds'>,
  delivery: DeliveryTiming = {},
): Pick<Run, 'enqueuedAt' | 'receivedAt' | 'slaSeconds'> {
  return {
    slaSeconds: job.slaSeconds ?? DEFAULT_SLA_SECONDS,
    ...(delivery.sentAt === undefined ? {} : { enqueuedAt: delivery.sentAt }),
    ...(delivery.firstReceivedAt === undefined ? {} : { receivedAt: delivery.firstReceivedAt }),
  };
}
