import { Duration, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV } from '#adapters/environment';
import { OBSERVABILITY_ENV } from '#adapters/observability-environment';
import type { DispatchLanes } from '../dispatch-lanes.ts';
import { ChronosFunction, type SharedFunctionProps } from './chronos-function.ts';
import { WORKFLOW_RUN_ENGINE_ACTIONS } from './workflow-runs-table.ts';

export interface StreamFailureHandlerProps {
  /** The completion mapping's on-failure destination: one message per batch given up on. */
  failureQueue: sqs.IQueue;
  /** The runs table, whose stream the failed batches came from (read back by sequence number). */
  runsTable: dynamodb.ITable;
  /** What the completion handler touches to complete a run, since it completes them again. */
  jobsTable: dynamodb.ITable;
  metricsTable: dynamodb.ITable;
  /** A task run it completes advances its workflow run, as in the completion handler. */
  workflowRunsTable: dynamodb.ITable;
  /** A retry it makes is sent to its run's lane. */
  dispatchLanes: DispatchLanes;
  failureNoticeQueue: sqs.IQueue;
  shared: SharedFunctionProps;
}

/**
 * Consumes the completion mapping's on-failure queue. Such a message names a shard and a range of
 * sequence numbers, not the records: the handler reads them back from the runs stream (within its
 * 24 hours), completes each run that had reached a terminal state through the same use case as
 * the completion handler, logs every run it handled, and counts records already gone
 * (StreamRecordsLost, alarmed) so no lost retry or job update stays silent.
 */
export class StreamFailureHandler extends Construct {
  public readonly function: ChronosFunction;
  public readonly eventSource: SqsEventSource;

  constructor(scope: Construct, id: string, props: StreamFailureHandlerProps) {
    super(scope, id);
    const streamArn = props.runsTable.tableStreamArn;
    if (!streamArn) throw new Error('StreamFailureHandler: the runs table must have a stream');
    this.function = new ChronosFunction(this, 'Function', {
      handlerFile: 'stream-failures.ts',
      description: 'Chronos stream failures: reads failed runs-stream batches back and completes their runs',
      timeout: Duration.seconds(30),
      ...props.shared,
    })
      .bindTable({ table: props.jobsTable, access: 'readWrite', envName: ENV.jobsTable })
      .bindTable({ table: props.runsTable, access: 'readWrite', envName: ENV.runsTable })
      .bindTableActions(props.workflowRunsTable, WORKFLOW_RUN_ENGINE_ACTIONS, ENV.workflowRunsTable)
      .bindDispatchLanes(props.dispatchLanes)
      .bindQueueSend(props.failureNoticeQueue, ENV.failureNoticeQueueUrl)
      .bindTable({ table: props.metricsTable, access: 'readWrite', envName: OBSERVABILITY_ENV.metricsTable });
    // Reading a known shard from a known position needs no DescribeStream or ListStreams.
    iam.Grant.addToPrincipal({
      grantee: this.function,
      actions: ['dynamodb:GetShardIterator', 'dynamodb:GetRecords'],
      resourceArns: [streamArn],
    });
    this.function.addEnvironment(ENV.runsStreamArn, streamArn);
    this.eventSource = new SqsEventSource(props.failureQueue, {
      batchSize: 1,
      reportBatchItemFailures: true,
      maxConcurrency: 2,
    });
    this.function.addEventSource(this.eventSource);
    const reason =
      'Consumes a terminal failure queue itself: a message that keeps failing is set aside by the handler after a bounded number of receives (logged, counted, alarmed); there is no further queue to send it to';
    Validations.of(this.function).acknowledge(
      { id: 'Serverless::Serverless-LambdaDLQ', reason },
      { id: 'Serverless::Serverless-LambdaEventSourceMappingDestination', reason },
    );
  }
}
