import { Duration, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV } from '#adapters/environment';
import { NOTIFIER_TIMEOUT } from '../timeouts.ts';
import { ChronosFunction, type SharedFunctionProps } from './chronos-function.ts';

export interface FailureNotifierProps {
  /** The failure-notice queue (stateful stack, failure-notice-queue.ts) and where it redrives. */
  queue: sqs.IQueue;
  deadLetterQueue: sqs.IQueue;
  /** Read: a notice is sent to its job's current onFailure URL. */
  jobsTable: dynamodb.ITable;
  /** Read, with the secrets key: the tenant's signing secrets, sealed there (as the executor opens them). */
  tenantsTable: dynamodb.ITable;
  secretsKey: kms.IKey;
  /** Notices consumed at once, at most: a hanging endpoint holds one invocation for its timeout. */
  maxConcurrency?: number;
  shared: SharedFunctionProps;
}

/**
 * onFailure notifications, away from the completion stream: the completion handler sends a
 * notice to the failure-notice queue; the notifier function calls the job's onFailure URL through
 * the guarded invoker. A notice the endpoint did not take is hidden with a growing backoff
 * (ChangeMessageVisibility, granted by the event source), and after the queue's receive limit
 * rests in its dead-letter queue, which `deadLetterAlarm` watches.
 */
export class FailureNotifier extends Construct {
  public readonly function: ChronosFunction;
  public readonly eventSource: SqsEventSource;
  public readonly deadLetterAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: FailureNotifierProps) {
    super(scope, id);
    this.function = new ChronosFunction(this, 'Function', {
      handlerFile: 'notifier.ts',
      description: "Chronos notifier: calls a job's onFailure URL when an occurrence failed for good",
      timeout: NOTIFIER_TIMEOUT,
      ...props.shared,
    })
      .bindTable({ table: props.jobsTable, access: 'read', envName: ENV.jobsTable })
      .bindTable({ table: props.tenantsTable, access: 'read', envName: ENV.tenantsTable })
      .bindKeyDecrypt(props.secretsKey, ENV.secretsKmsKeyId);
    // Its own queue's URL: the backoff of a notice not delivered is a ChangeMessageVisibility on it.
    this.function.addEnvironment(ENV.failureNoticeQueueUrl, props.queue.queueUrl);
    this.eventSource = new SqsEventSource(props.queue, {
      batchSize: 10,
      maxBatchingWindow: Duration.seconds(1),
      reportBatchItemFailures: true,
      maxConcurrency: props.maxConcurrency ?? 5,
    });
    this.function.addEventSource(this.eventSource);
    this.deadLetterAlarm = new cloudwatch.Alarm(this, 'DeadLettersAlarm', {
      metric: props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: 'Maximum',
      }),
      alarmDescription:
        'A failure notification was never taken by its onFailure endpoint: read the notifier dead-letter queue, fix the endpoint, then redrive it',
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    const reason =
      'SQS-driven: a notice that keeps failing moves to the notifier dead-letter queue through its redrive policy (Lambda supports no on-failure destination for SQS event sources)';
    Validations.of(this.function).acknowledge(
      { id: 'Serverless::Serverless-LambdaDLQ', reason },
      { id: 'Serverless::Serverless-LambdaEventSourceMappingDestination', reason },
    );
  }
}
