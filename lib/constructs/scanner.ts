import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as targets from 'aws-cdk-lib/aws-scheduler-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { JOBS_TABLE, RUNS_TABLE } from '#adapters/dynamodb/table-definitions';
import { ENV } from '#adapters/environment';
import { OBSERVABILITY_ENV } from '#adapters/observability-environment';
import type { DispatchLanes } from '../dispatch-lanes.ts';
import { SCANNER_TIMEOUT } from '../timeouts.ts';
import { ChronosFunction, type SharedFunctionProps } from './chronos-function.ts';
import { FailureQueue } from './failure-queue.ts';

export interface ScannerProps {
  jobsTable: dynamodb.ITable;
  runsTable: dynamodb.ITable;
  /** Each lane's dispatch queue: a run is sent to its own lane's. */
  dispatchLanes: DispatchLanes;
  /** Where every pass writes its heartbeat per shard. */
  metricsTable: dynamodb.ITable;
  shared: SharedFunctionProps;
  retainData: boolean;
}

/**
 * The scanner: every minute it materializes the occurrences due within the horizon (due-index of
 * the jobs table) and sweeps runs whose lease expired or whose retry is due (sweep-index of runs).
 *
 * Scheduled with EventBridge Scheduler rather than an EventBridge rule: a schedule needs no event
 * bus, has its own retry policy and dead-letter queue per target, larger quotas, and is the
 * service Chronos may later use for far-future one-off jobs. A missed tick is harmless (the next
 * one scans the same horizon), so retries are few and short-lived; whatever still fails, at the
 * scheduler or in the function, lands in a failure queue instead of vanishing.
 */
export class Scanner extends Construct {
  public readonly function: ChronosFunction;
  public readonly schedule: scheduler.Schedule;
  /** Scheduler deliveries and async invocations that failed for good. */
  public readonly failureQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: ScannerProps) {
    super(scope, id);
    this.failureQueue = new FailureQueue(this, 'Failures', { retainData: props.retainData }).queue;
    this.function = new ChronosFunction(this, 'Function', {
      handlerFile: 'scanner.ts',
      description: 'Chronos scanner: materializes due occurrences every minute',
      timeout: SCANNER_TIMEOUT,
      ...props.shared,
    })
      .bindTable({
        table: props.jobsTable,
        access: 'readWrite',
        envName: ENV.jobsTable,
        indexes: [JOBS_TABLE.dueIndex.name],
      })
      .bindTable({
        table: props.runsTable,
        access: 'readWrite',
        envName: ENV.runsTable,
        // The sweep, and the deadline pass of async runs in flight.
        indexes: [RUNS_TABLE.sweepIndex.name, RUNS_TABLE.deadlineIndex.name],
      })
      .bindDispatchLanes(props.dispatchLanes)
      .bindTable({ table: props.metricsTable, access: 'readWrite', envName: OBSERVABILITY_ENV.metricsTable });
    // A tick retried after the next one has started is only wasted work: no Lambda-side retries.
    this.function.configureAsyncInvoke({
      retryAttempts: 0,
      maxEventAge: Duration.minutes(2),
      onFailure: new SqsDestination(this.failureQueue),
    });
    Validations.of(this.function).acknowledge({
      id: 'Serverless::Serverless-LambdaDLQ',
      reason:
        'Asynchronous failures go to the on-failure destination (the failure queue), the successor of function DLQs',
    });
    const scheduleRole = new iam.Role(this, 'ScheduleRole', {
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description: 'Lets EventBridge Scheduler invoke the Chronos scanner',
    });
    const functionLogicalId = Stack.of(this).getLogicalId(this.function.node.defaultChild as lambda.CfnFunction);
    Validations.of(scheduleRole).acknowledge({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${functionLogicalId}.Arn>:*]`,
      reason:
        "grantInvoke (used by the scheduler target) also covers the function's versions and aliases; still only this one function",
    });
    this.schedule = new scheduler.Schedule(this, 'EveryMinute', {
      description: 'Chronos scanner tick',
      schedule: scheduler.ScheduleExpression.rate(Duration.minutes(1)),
      target: new targets.LambdaInvoke(this.function, {
        role: scheduleRole,
        retryAttempts: 2,
        maxEventAge: Duration.minutes(1),
        deadLetterQueue: this.failureQueue,
      }),
    });
  }
}
