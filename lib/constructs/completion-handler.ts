import { Duration, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV } from '#adapters/environment';
import { OBSERVABILITY_ENV } from '#adapters/observability-environment';
import { COMPLETION_BATCH_SIZE, COMPLETION_BATCHING_WINDOW_SECONDS } from '#core/limits';
import { COMPLETION_FILTER_PATTERNS } from '#handlers/completion-filter';
import type { DispatchLanes } from '../dispatch-lanes.ts';
import { COMPLETION_TIMEOUT } from '../timeouts.ts';
import { ChronosFunction, type SharedFunctionProps } from './chronos-function.ts';
import { FailureQueue } from './failure-queue.ts';
import { WORKFLOW_RUN_ENGINE_ACTIONS } from './workflow-runs-table.ts';

export interface CompletionHandlerProps {
  jobsTable: dynamodb.ITable;
  /** Must have a stream with old and new images. */
  runsTable: dynamodb.ITable;
  /** Workflow runs the handler advances as their task runs end (get, put, update only). */
  workflowRunsTable: dynamodb.ITable;
  /** Where the next attempt of a failed run is sent: its lane's dispatch queue. */
  dispatchLanes: DispatchLanes;
  /** Where the notice of an occurrence that failed for good is sent (the notifier's queue). */
  failureNoticeQueue: sqs.IQueue;
  /** Run aggregates and job-status counters the handler maintains. */
  metricsTable: dynamodb.ITable;
  /** Concurrent batches per stream shard (1..10). */
  parallelizationFactor: number;
  shared: SharedFunctionProps;
  retainData: boolean;
}

/**
 * The completion handler: reacts to runs entering a terminal state (stream filter): creates and
 * sends the next attempt of a failed run, updates its job, and queues the notice of an occurrence
 * that failed for good for the notifier (never calling an endpoint itself); and keeps the monitoring
 * aggregates, from those records and from runs entering and leaving QUEUED. A poison record is
 * isolated by bisecting, retried a bounded number of times, and then its stream coordinates go to
 * a failure queue so the shard keeps moving.
 */
export class CompletionHandler extends Construct {
  public readonly function: ChronosFunction;
  public readonly eventSource: DynamoEventSource;
  public readonly failureQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: CompletionHandlerProps) {
    super(scope, id);
    if (!props.runsTable.tableStreamArn) throw new Error('CompletionHandler: the runs table must have a stream');
    this.failureQueue = new FailureQueue(this, 'Failures', { retainData: props.retainData }).queue;
    this.function = new ChronosFunction(this, 'Function', {
      handlerFile: 'completion.ts',
      description: 'Chronos completion: updates a job when one of its runs finishes',
      timeout: COMPLETION_TIMEOUT,
      ...props.shared,
    })
      .bindTable({ table: props.jobsTable, access: 'readWrite', envName: ENV.jobsTable })
      // Writes the next attempt of a failed run (retries), and sends it.
      .bindTable({ table: props.runsTable, access: 'readWrite', envName: ENV.runsTable })
      .bindTableActions(props.workflowRunsTable, WORKFLOW_RUN_ENGINE_ACTIONS, ENV.workflowRunsTable)
      .bindDispatchLanes(props.dispatchLanes)
      .bindQueueSend(props.failureNoticeQueue, ENV.failureNoticeQueueUrl)
      .bindTable({ table: props.metricsTable, access: 'readWrite', envName: OBSERVABILITY_ENV.metricsTable });
    this.eventSource = new DynamoEventSource(props.runsTable, {
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: COMPLETION_BATCH_SIZE,
      maxBatchingWindow: Duration.seconds(COMPLETION_BATCHING_WINDOW_SECONDS),
      reportBatchItemFailures: true,
      bisectBatchOnError: true,
      retryAttempts: 5,
      maxRecordAge: Duration.hours(6),
      parallelizationFactor: props.parallelizationFactor,
      onFailure: new SqsDlq(this.failureQueue),
      filters: COMPLETION_FILTER_PATTERNS.map((pattern) =>
        lambda.FilterCriteria.filter(pattern as Record<string, unknown>),
      ),
    });
    this.function.addEventSource(this.eventSource);
    Validations.of(this.function).acknowledge({
      id: 'Serverless::Serverless-LambdaDLQ',
      reason:
        'Stream-driven: records that keep failing go to the event source mapping on-failure queue, a function DLQ would never be used',
    });
    // Deeper than ChronosFunction's own acknowledgement of the same finding, to state the second reason.
    Validations.of(this.function.executionRole).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray trace writes and dynamodb:ListStreams (needed to read the runs stream) support no resource-level permissions',
    });
  }
}
