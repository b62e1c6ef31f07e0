import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { FailureQueue } from './failure-queue.ts';

export interface DispatchQueueProps {
  /** Must be at least six times the executor's timeout (AWS guidance for SQS event sources). */
  visibilityTimeout: Duration;
  /** Receives before a message is moved to the dead-letter queue. */
  maxReceiveCount: number;
  retainData: boolean;
}

/** The queue of due runs that the executor consumes, with its dead-letter queue. */
export class DispatchQueue extends Construct {
  public readonly queue: sqs.Queue;
  public readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: DispatchQueueProps) {
    super(scope, id);
    if (!Number.isInteger(props.maxReceiveCount) || props.maxReceiveCount < 1) {
      throw new Error(`DispatchQueue: maxReceiveCount must be a positive integer, got ${props.maxReceiveCount}`);
    }
    this.deadLetterQueue = new FailureQueue(this, 'DeadLetters', { retainData: props.retainData }).queue;
    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: props.visibilityTimeout,
      // Runs are delayed up to 15 minutes and leases recover stuck ones; four days is ample.
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
      removalPolicy: props.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
  }
}
