/**
 * How GET /v1/monitoring/system shows a queue's oldest-message age: a number only when CloudWatch
 * gave one, otherwise null with the reason, so an unreadable metric never reads as an empty queue.
 */
import type { OldestMessageAge } from '#adapters/sqs/oldest-message-age';

export type OldestMessageAgeSource =
  /** `at`: start of the minute of CloudWatch's newest datapoint (SQS metrics arrive a minute or two late). */
  | { source: 'cloudwatch'; at: string }
  | { source: 'cloudwatch'; reason: 'noData' }
  | { source: 'cloudwatch'; reason: 'error'; error: string };

export interface OldestMessageAgeView {
  oldestMessageAgeSeconds: number | null;
  oldestMessageAge: OldestMessageAgeSource;
}

export function oldestMessageAgeView(age: OldestMessageAge): OldestMessageAgeView {
  switch (age.kind) {
    case 'datapoint':
      return {
        oldestMessageAgeSeconds: age.seconds,
        oldestMessageAge: { source: 'cloudwatch', at: new Date(age.at).toISOString() },
      };
    case 'noData':
      return { oldestMessageAgeSeconds: null, oldestMessageAge: { source: 'cloudwatch', reason: 'noData' } };
    case 'error':
      return {
        oldestMessageAgeSeconds: null,
        oldestMessageAge: { source: 'cloudwatch', reason: 'error', error: age.error },
      };
  }
}
