import { Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { CALLBACK_KEYS_CONTEXT } from '#adapters/dynamodb/callback-key-store';
import { ENV } from '#adapters/environment';
import { EXECUTOR_BATCH_SIZE } from '#core/limits';
import { type DispatchLanes, PRIORITIES, type Priority } from '../dispatch-lanes.ts';
import { EXECUTOR_TIMEOUT } from '../timeouts.ts';
import { ChronosFunction, type SharedFunctionProps } from './chronos-function.ts';
import { WORKFLOW_RUN_ENGINE_ACTIONS } from './workflow-runs-table.ts';

export interface ExecutorProps {
  jobsTable: dynamodb.ITable;
  runsTable: dynamodb.ITable;
  /** Workflow runs: a starter run of a scheduled workflow becomes one (get, put, update only). */
  workflowRunsTable: dynamodb.ITable;
  /**
   * Failure notices (the notifier's queue): starting a workflow run steps it, and a step can end it
   * FAILED (no root task could be started; a redelivered starter run finding it ended), which
   * notifies its onFailure URL as the completion handler would.
   */
  failureNoticeQueue: sqs.IQueue;
  /** Each lane's dispatch queue; its redrive policy is the executor's dead-letter path. */
  dispatchLanes: DispatchLanes;
  /**
   * SQS maximum concurrency per lane: how many executors each lane's queue may drive at once
   * (>= 2). Separate, so bulk work in one lane never takes the executors of another.
   */
  maxConcurrency: Readonly<Record<Priority, number>>;
  /** Concurrency reserved for the function; unset shares the account pool. */
  reservedConcurrency?: number;
  /** Per-tenant in-flight slots (read and write) and each tenant's quotas. */
  tenantsTable: dynamodb.ITable;
  /**
   * Opens secret target headers and the tenants' signing secrets, stored sealed in the tenants
   * table (kms:Decrypt only): no signing secret is in the function's environment.
   */
  secretsKey: kms.IKey;
  /**
   * The API's public base URL (no trailing slash): async jobs' calls carry
   * `Chronos-Callback-Url: <it>/v1/callbacks/<token>`.
   */
  callbackBaseUrl: string;
  shared: SharedFunctionProps;
}

/** The executor: consumes due runs from every lane's dispatch queue and calls their targets. */
export class Executor extends Construct {
  public readonly function: ChronosFunction;
  /** One SQS event source per lane, each with the lane's own maximum concurrency. */
  public readonly eventSources: Readonly<Record<Priority, SqsEventSource>>;

  constructor(scope: Construct, id: string, props: ExecutorProps) {
    super(scope, id);
    this.function = new ChronosFunction(this, 'Function', {
      handlerFile: 'executor.ts',
      description: 'Chronos executor: calls the target of each dispatched run',
      timeout: EXECUTOR_TIMEOUT,
      reservedConcurrentExecutions: props.reservedConcurrency,
      ...props.shared,
    })
      .bindTable({ table: props.jobsTable, access: 'read', envName: ENV.jobsTable })
      .bindTable({ table: props.runsTable, access: 'readWrite', envName: ENV.runsTable })
      .bindTableActions(props.workflowRunsTable, WORKFLOW_RUN_ENGINE_ACTIONS, ENV.workflowRunsTable)
      .bindTable({ table: props.tenantsTable, access: 'readWrite', envName: ENV.tenantsTable })
      .bindKeyDecrypt(props.secretsKey, ENV.secretsKmsKeyId)
      // The first call of an async job makes the callback token key (callback-key-store.ts): a data
      // key only under the keys' own encryption context, never one for a tenant's secrets.
      .bindKeyUnderContext(props.secretsKey, ['kms:GenerateDataKey'], ENV.secretsKmsKeyId, CALLBACK_KEYS_CONTEXT)
      // A run whose tenant is at its in-flight cap is sent back with a short delay (tenant-run-cap.ts),
      // to its own lane; a starter run's workflow tasks go to theirs.
      .bindDispatchLanes(props.dispatchLanes)
      .bindQueueSend(props.failureNoticeQueue, ENV.failureNoticeQueueUrl);
    // `overlap: "forbid"`: the in-flight marker on the job item is set and released by conditional
    // updates (job-repository.ts takeInFlight/releaseInFlight). Updates only: no put, no delete.
    iam.Grant.addToPrincipal({
      grantee: this.function,
      actions: ['dynamodb:UpdateItem'],
      resourceArns: [props.jobsTable.tableArn],
    });
    // Every record of a batch is called at its own time, in parallel: ten per invocation halves the
    // invocations and SQS receives per run against five. No batching window: a message released
    // just before its due second would wait out the window and fire late, while under load a
    // receive returns full batches without one.
    // Each event source grants sqs:ChangeMessageVisibility on its queue (with receive and delete): the
    // executor hides a claimed run's message, on the queue it came from, until its lease ends
    // (adapters/sqs/batch-lease-visibility.ts). The normal lane's mapping keeps its logical id
    // (it is named after its queue), so adding lanes replaces no mapping.
    const eventSource = (lane: Priority) => {
      const source = new SqsEventSource(props.dispatchLanes[lane].queue, {
        batchSize: EXECUTOR_BATCH_SIZE,
        reportBatchItemFailures: true,
        maxConcurrency: props.maxConcurrency[lane],
      });
      this.function.addEventSource(source);
      return source;
    };
    this.eventSources = { high: eventSource('high'), normal: eventSource('normal'), low: eventSource('low') };
    this.function.addEnvironment(ENV.callbackBaseUrl, props.callbackBaseUrl);
    // A tenant whose in-flight cap is at least this many calls can never be capped: it takes no
    // slot. A tenant's slots count its calls in every lane, so the bound is the whole fleet's.
    const fleet = PRIORITIES.reduce((sum, lane) => sum + props.maxConcurrency[lane], 0);
    this.function.addEnvironment(ENV.executorMaxCallsInFlight, String(fleet * EXECUTOR_BATCH_SIZE));
    const reason =
      'SQS-driven: a message that keeps failing moves to the dead-letter queue of its lane through its redrive policy (Lambda supports no on-failure destination for SQS event sources)';
    Validations.of(this.function).acknowledge(
      { id: 'Serverless::Serverless-LambdaDLQ', reason },
      { id: 'Serverless::Serverless-LambdaEventSourceMappingDestination', reason },
    );
  }
}
