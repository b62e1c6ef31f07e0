import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { NOTIFIER_TIMEOUT } from '../timeouts.ts';
import { FailureQueue } from './failure-queue.ts';

/** Receives before a notice rests in the dead-letter queue: with its backoff (10 s × 4ⁿ), about an hour of tries. */
export const NOTIFIER_MAX_RECEIVE_COUNT = 8;

export interface FailureNoticeQueueProps {
  retainData: boolean;
}

/**
 * The queue of failure notices (completion sends, the notifier consumes), with its dead-letter
 * queue: a notice no endpoint took within NOTIFIER_MAX_RECEIVE_COUNT receives waits there.
 */
export class FailureNoticeQueue extends Construct {
  public readonly queue: sqs.Queue;
  public readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: FailureNoticeQueueProps) {
    super(scope, id);
    this.deadLetterQueue = new FailureQueue(this, 'DeadLetters', { retainData: props.retainData }).queue;
    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // AWS's advice for SQS event sources: six times the consumer's timeout.
      visibilityTimeout: Duration.seconds(NOTIFIER_TIMEOUT.toSeconds() * 6),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: NOTIFIER_MAX_RECEIVE_COUNT },
      removalPolicy: props.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
  }
}
