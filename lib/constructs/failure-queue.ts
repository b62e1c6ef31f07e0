import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface FailureQueueProps {
  /** Keep undelivered failures when the stack is deleted. */
  retainData: boolean;
}

/**
 * A terminal queue for records that could not be processed (dead letters, on-failure
 * destinations): encrypted, TLS-only, and kept for the longest retention SQS allows.
 */
export class FailureQueue extends Construct {
  public readonly queue: sqs.Queue;

  constructor(scope: Construct, id: string, props: FailureQueueProps) {
    super(scope, id);
    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      removalPolicy: props.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    const reason =
      'This queue is the end of a failure path; its messages wait for an operator, there is nothing to redrive them to';
    Validations.of(this.queue).acknowledge(
      { id: 'AwsSolutions::AwsSolutions-SQS3', reason },
      { id: 'Serverless::Serverless-SQSRedrivePolicy', reason },
    );
  }
}
