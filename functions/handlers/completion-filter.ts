/**
 * Stream filter for the completion handler: wake for the changes it acts on or counts, nothing
 * else (a run's RUNNING heartbeats and lease renewals never reach it).
 *  - a run moving into a terminal state: completes its occurrence and job, and is counted;
 *  - a run entering QUEUED (created, or put back) and leaving it (claimed, ended, or deleted while
 *    queued): the queued counters of monitoring ("runs due but not started").
 * CDK passes these patterns to the event source mapping; the local stream poller evaluates the
 * same patterns, so both drop the same records. Four patterns: Lambda allows five filters per
 * event source mapping by default.
 */
import { TERMINAL_RUN_STATUSES } from '#core/run-state';

export const COMPLETION_FILTER_PATTERNS = [
  {
    eventName: ['MODIFY'],
    dynamodb: {
      NewImage: { status: { S: [...TERMINAL_RUN_STATUSES] } },
      OldImage: { status: { S: [{ 'anything-but': [...TERMINAL_RUN_STATUSES] }] } },
    },
  },
  // A run created QUEUED (every run is).
  { eventName: ['INSERT'], dynamodb: { NewImage: { status: { S: ['QUEUED'] } } } },
  // A run put back into QUEUED (nothing does today; counted should anything start to).
  {
    eventName: ['MODIFY'],
    dynamodb: {
      NewImage: { status: { S: ['QUEUED'] } },
      OldImage: { status: { S: [{ 'anything-but': ['QUEUED'] }] } },
    },
  },
  // A queued run changed (claimed, ended, or re-timed) or deleted (a discarded occurrence, TTL).
  { eventName: ['MODIFY', 'REMOVE'], dynamodb: { OldImage: { status: { S: ['QUEUED'] } } } },
] as const;
