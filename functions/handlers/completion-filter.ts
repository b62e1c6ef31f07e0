/**
 * Stream filter for the completion handler: wake only when a run moves into a terminal state.
 * CDK passes these patterns to the event source mapping; the local stream poller evaluates the
 * same patterns, so both drop the same records.
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
] as const;
