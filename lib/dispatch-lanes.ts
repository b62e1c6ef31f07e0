/**
 * The priority lanes (functions/core/priority.ts) as the stacks see them: each lane's dispatch
 * queue and dead-letter queue, and the environment variables that name them to the functions.
 * The `normal` lane keeps the names (and the CloudFormation resources) of the single queue
 * Chronos had before lanes, so an existing stage's queue is not replaced.
 */
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { ENV } from '#adapters/environment';
import { OBSERVABILITY_ENV } from '#adapters/observability-environment';
import { PRIORITIES, type Priority } from '#core/priority';

export { PRIORITIES, type Priority };

/** One lane's queues: its dispatch queue and where that queue redrives. */
export interface LaneQueues {
  queue: sqs.IQueue;
  deadLetterQueue: sqs.IQueue;
}

export type DispatchLanes = Readonly<Record<Priority, LaneQueues>>;

/** Where a function that sends runs finds each lane's dispatch queue. */
export const DISPATCH_QUEUE_URL_ENV: Readonly<Record<Priority, string>> = {
  high: ENV.dispatchQueueUrlHigh,
  normal: ENV.dispatchQueueUrl,
  low: ENV.dispatchQueueUrlLow,
};

/** Where a monitoring function finds each lane's queues (their depths). */
export const MONITORED_QUEUE_URL_ENV: Readonly<Record<Priority, { dispatch: string; deadLetter: string }>> = {
  high: {
    dispatch: OBSERVABILITY_ENV.monitoredDispatchQueueUrlHigh,
    deadLetter: OBSERVABILITY_ENV.monitoredDeadLetterQueueUrlHigh,
  },
  normal: {
    dispatch: OBSERVABILITY_ENV.monitoredDispatchQueueUrl,
    deadLetter: OBSERVABILITY_ENV.monitoredDeadLetterQueueUrl,
  },
  low: {
    dispatch: OBSERVABILITY_ENV.monitoredDispatchQueueUrlLow,
    deadLetter: OBSERVABILITY_ENV.monitoredDeadLetterQueueUrlLow,
  },
};

/** `high` → `High`: construct ids and alarm names of a lane. */
export function laneTitle(lane: Priority): string {
  return `${lane[0]?.toUpperCase()}${lane.slice(1)}`;
}
