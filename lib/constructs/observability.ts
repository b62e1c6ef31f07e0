import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { AlarmThresholds } from '../config.ts';
import { type DispatchLanes, laneTitle, PRIORITIES, type Priority } from '../dispatch-lanes.ts';

/** Names of the custom metrics the handlers emit (namespace Chronos, dimensions service and stage). */
export const CHRONOS_METRICS = {
  namespace: 'Chronos',
  service: 'chronos',
  outcomes: ['RunsSucceeded', 'RunsFailed', 'RunsRetried', 'RunsDeadLettered', 'RunsSkipped'],
  /** One per run the dead-letter handler records (functions/handlers/dead-letter.ts). */
  deadLettered: 'RunsDeadLettered',
  startLag: 'StartLagMs',
  httpDuration: 'HttpDurationMs',
  scannerDuration: 'ScannerDurationMs',
  scannerMaterialized: 'ScannerRunsMaterialized',
  scannerShardLag: 'ScannerShardLag',
  /** Scanner shards whose pass failed (functions/handlers/scanner.ts). */
  scannerShardFailures: 'ScannerShardFailures',
  /** Jobs the scanner took out of the due-index because their own data made them fail. */
  jobsQuarantined: 'JobsQuarantined',
  /** Jobs a scanner pass could not materialize for a transient reason (tried again next pass). */
  scannerJobFailures: 'ScannerJobFailures',
  /** Stream and dead-letter records that could never succeed, logged and skipped (functions/handlers/set-aside.ts). */
  recordsSetAside: 'RecordsSetAside',
  /** Runs whose completion the stream-failure handler did again (functions/handlers/stream-failures.ts). */
  streamRunsRedriven: 'StreamRunsRedriven',
  /** Stream records a failed batch named that were gone from the stream when read back. */
  streamRecordsLost: 'StreamRecordsLost',
} as const;

export interface ObservabilityProps {
  stage: string;
  /** Subscribed to the alarm topic when given. */
  alarmEmail?: string;
  /** An existing topic every alarm notifies instead of one of this construct's own. */
  alarmTopicArn?: string;
  /**
   * Terminal failure queues by a readable name (the completion mapping's on-failure destination,
   * the scanner's failed ticks): each alarms on any message sent to it.
   */
  failureQueues: ReadonlyMap<string, sqs.IQueue>;
  /** Every Chronos function, by a readable name (dashboard legends and alarm names). */
  functions: ReadonlyMap<string, lambda.IFunction>;
  /** The stream consumer whose iterator age is watched. */
  completionFunction: lambda.IFunction;
  /** Each lane's dispatch and dead-letter queues: alarmed and graphed lane by lane. */
  dispatchLanes: DispatchLanes;
  tables: ReadonlyMap<string, dynamodb.ITable>;
  /** Where each alarm fires: the stage's `alarms` configuration (lib/config.ts). */
  thresholds: AlarmThresholds;
}

/**
 * Chronos' CloudWatch dashboard and alarms. Alarms notify one SNS topic (email from config):
 * dead letters, a queue message waiting too long, a start-lag p99 too high, a missing scanner
 * heartbeat (no scan metric for some minutes), a scanner shard failing, a job quarantined, a
 * record set aside, a function failing too often, a stream consumer falling behind. Every
 * threshold comes from the stage configuration, except the last three failure alarms, which fire
 * on any occurrence: each one names something an operator must look at.
 */
export class Observability extends Construct {
  /** Where every alarm goes: the stage's own topic, or the one alarmTopicArn names. */
  public readonly topic: sns.ITopic;
  public readonly dashboard: cloudwatch.Dashboard;
  public readonly alarms: {
    /** Runs dead-lettered, whatever their lane (the dead-letter handler counts each it records). */
    deadLetters: cloudwatch.Alarm;
    /** The normal lane's oldest message (`lanes.normal.oldestMessage`, under its name before lanes). */
    oldestMessage: cloudwatch.Alarm;
    /** Per lane: dead letters received from its DLQ, and its oldest dispatch message. */
    lanes: Readonly<Record<Priority, { deadLetters: cloudwatch.Alarm; oldestMessage: cloudwatch.Alarm }>>;
    startLagP99: cloudwatch.Alarm;
    scannerHeartbeat: cloudwatch.Alarm;
    scannerShardFailures: cloudwatch.Alarm;
    jobsQuarantined: cloudwatch.Alarm;
    scannerJobFailures: cloudwatch.Alarm;
    recordsSetAside: cloudwatch.Alarm;
    streamRecordsLost: cloudwatch.Alarm;
    iteratorAge: cloudwatch.Alarm;
    failureQueues: ReadonlyMap<string, cloudwatch.Alarm>;
    functionErrors: ReadonlyMap<string, cloudwatch.Alarm>;
  };

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    const thresholds = props.thresholds;
    this.topic =
      props.alarmTopicArn === undefined
        ? new sns.Topic(this, 'Alarms', { displayName: `Chronos ${props.stage} alarms`, enforceSSL: true })
        : sns.Topic.fromTopicArn(this, 'Alarms', props.alarmTopicArn);
    if (props.alarmEmail) this.topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    const notify = new actions.SnsAction(this.topic);
    const custom = (metricName: string, statistic: string, period = Duration.minutes(1)) =>
      new cloudwatch.Metric({
        namespace: CHRONOS_METRICS.namespace,
        metricName,
        dimensionsMap: { service: CHRONOS_METRICS.service, stage: props.stage },
        statistic,
        period,
      });
    const alarm = (name: string, alarmProps: cloudwatch.AlarmProps) => {
      const created = new cloudwatch.Alarm(this, name, { alarmName: `chronos-${props.stage}-${name}`, ...alarmProps });
      created.addAlarmAction(notify);
      created.addOkAction(notify);
      return created;
    };

    // Not the DLQ's depth: the dead-letter handler drains it within seconds, so a one-minute
    // maximum of visible messages almost never sees one. Each run it records as dead-lettered is
    // counted (RunsDeadLettered); SQS's own NumberOfMessagesSent does not count messages moved
    // there by a redrive policy (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-available-cloudwatch-metrics.html).
    const deadLetters = alarm('DeadLetters', {
      metric: custom(CHRONOS_METRICS.deadLettered, 'Sum'),
      alarmDescription:
        thresholds.deadLetterMessages === 0
          ? 'A run was dead-lettered: GET /v1/dead-letters, then re-drive or fix the target'
          : `More than ${thresholds.deadLetterMessages} runs were dead-lettered in a minute: GET /v1/dead-letters, then re-drive or fix the target`,
      threshold: thresholds.deadLetterMessages,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    // Each lane has its own executors, so each can fall behind alone: one alarm per lane. The normal
    // lane's keeps the id and name of the single queue's alarm before lanes.
    const laneOldestMessage = (lane: Priority) =>
      alarm(lane === 'normal' ? 'OldestMessage' : `${laneTitle(lane)}OldestMessage`, {
        metric: props.dispatchLanes[lane].queue.metricApproximateAgeOfOldestMessage({
          period: Duration.minutes(1),
          statistic: 'Maximum',
        }),
        alarmDescription: `A due run waited in the ${lane} lane's dispatch queue longer than ${thresholds.oldestMessageSeconds} s: that lane's executors (its maximum concurrency) are short or failing`,
        threshold: thresholds.oldestMessageSeconds,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    // Which lane's runs are dead-lettered: the dead-letter handler receives every message of each
    // lane's DLQ at least once (NumberOfMessagesReceived moves, where the drained depth would not;
    // a message the handler fails is received again, so a count may run high, never low).
    const laneDeadLetters = (lane: Priority) =>
      alarm(`${laneTitle(lane)}DeadLetters`, {
        metric: props.dispatchLanes[lane].deadLetterQueue.metricNumberOfMessagesReceived({
          period: Duration.minutes(1),
          statistic: 'Sum',
        }),
        alarmDescription: `More than ${thresholds.deadLetterMessages} dispatch messages of the ${lane} lane were dead-lettered in a minute: GET /v1/dead-letters, then re-drive or fix the target`,
        threshold: thresholds.deadLetterMessages,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    const lanes = Object.fromEntries(
      PRIORITIES.map((lane) => [lane, { deadLetters: laneDeadLetters(lane), oldestMessage: laneOldestMessage(lane) }]),
    ) as Record<Priority, { deadLetters: cloudwatch.Alarm; oldestMessage: cloudwatch.Alarm }>;
    const oldestMessage = lanes.normal.oldestMessage;
    const startLagP99 = alarm('StartLagP99', {
      metric: custom(CHRONOS_METRICS.startLag, 'p99', Duration.minutes(5)),
      alarmDescription: `p99 start lag above ${thresholds.startLagP99Ms} ms: runs start late (Chronos' side, not the targets')`,
      threshold: thresholds.startLagP99Ms,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    // Every pass emits ScannerDurationMs: no sample for N minutes means no pass finished.
    const silence = thresholds.scannerSilenceMinutes;
    const scannerHeartbeat = alarm('ScannerHeartbeat', {
      metric: custom(CHRONOS_METRICS.scannerDuration, 'SampleCount'),
      alarmDescription: `No scanner pass finished for ${silence} minute${silence === 1 ? '' : 's'}: due jobs are not being materialized`,
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: silence,
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
    });
    // One failed pass may be a blip (a throttled query); a shard failing pass after pass is not.
    const scannerShardFailures = alarm('ScannerShardFailures', {
      metric: custom(CHRONOS_METRICS.scannerShardFailures, 'Sum'),
      alarmDescription:
        'A scanner shard keeps failing its pass: its due jobs are late. GET /v1/health names it; the scanner log says why',
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    const jobsQuarantined = alarm('JobsQuarantined', {
      metric: custom(CHRONOS_METRICS.jobsQuarantined, 'Sum'),
      alarmDescription:
        "A job was quarantined: the scanner could not plan or advance it. The scanner log ('job quarantined') names it; its GET /v1/jobs/{id} shows the reason",
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    // A transient failure is retried next pass; one that never clears is a failure the scanner
    // cannot tell from a blip (not the job's data as far as it knows), so someone must look.
    const scannerJobFailures = alarm('ScannerJobFailures', {
      metric: custom(CHRONOS_METRICS.scannerJobFailures, 'Sum'),
      alarmDescription:
        "Scanner passes keep failing to materialize some jobs for 5 minutes: the scanner log ('job not materialized this pass') names them",
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 5,
      datapointsToAlarm: 5,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    const recordsSetAside = alarm('RecordsSetAside', {
      metric: custom(CHRONOS_METRICS.recordsSetAside, 'Sum'),
      alarmDescription:
        "A runs-stream or dead-letter record could never succeed and was skipped: the handler log ('record set aside') names it",
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    const streamRecordsLost = alarm('StreamRecordsLost', {
      metric: custom(CHRONOS_METRICS.streamRecordsLost, 'Sum'),
      alarmDescription:
        "A failed runs-stream batch could not be read back (past the stream's 24 h): its runs' retries or job updates were not made. The stream-failures log ('stream records lost') names the range",
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    // Lambda (the stream mapping's on-failure destination, asynchronous invocations) and
    // EventBridge Scheduler (its dead-letter queue) put failures there with SendMessage, which
    // NumberOfMessagesSent counts; the depth would not do, as the stream failures are consumed.
    const failureQueues = new Map<string, cloudwatch.Alarm>();
    for (const [name, queue] of props.failureQueues) {
      failureQueues.set(
        name,
        alarm(`${name}FailureQueue`, {
          metric: queue.metricNumberOfMessagesSent({ period: Duration.minutes(1), statistic: 'Sum' }),
          alarmDescription: `Something failed for good and was sent to the ${name} failure queue: its handler's log says what`,
          threshold: 0,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
    }
    const iteratorAge = alarm('StreamIteratorAge', {
      metric: props.completionFunction.metric('IteratorAge', { period: Duration.minutes(1), statistic: 'Maximum' }),
      alarmDescription:
        'The completion handler is falling behind the runs stream: retries and job completions are late',
      threshold: thresholds.streamIteratorAgeMs,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    const errorRate = thresholds.functionErrorRatePercent;
    const functionErrors = new Map<string, cloudwatch.Alarm>();
    for (const [name, fn] of props.functions) {
      const period = Duration.minutes(5);
      functionErrors.set(
        name,
        alarm(`${name}ErrorRate`, {
          metric: new cloudwatch.MathExpression({
            expression: '100 * errors / MAX([invocations, 1])',
            usingMetrics: {
              errors: fn.metricErrors({ period, statistic: 'Sum' }),
              invocations: fn.metricInvocations({ period, statistic: 'Sum' }),
            },
            period,
            label: `${name} error rate (%)`,
          }),
          alarmDescription: `More than ${errorRate}% of ${name} invocations failed in 5 minutes`,
          threshold: errorRate,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
    }
    this.alarms = {
      deadLetters,
      oldestMessage,
      lanes,
      startLagP99,
      scannerHeartbeat,
      scannerShardFailures,
      jobsQuarantined,
      scannerJobFailures,
      recordsSetAside,
      streamRecordsLost,
      iteratorAge,
      failureQueues,
      functionErrors,
    };
    this.dashboard = this.buildDashboard(props, custom);
  }

  private buildDashboard(
    props: ObservabilityProps,
    custom: (name: string, statistic: string, period?: Duration) => cloudwatch.Metric,
  ): cloudwatch.Dashboard {
    const minute = Duration.minutes(1);
    const perFunction = (metric: (fn: lambda.IFunction) => cloudwatch.IMetric) =>
      [...props.functions.entries()].map(([name, fn]) => {
        const m = metric(fn) as cloudwatch.Metric;
        return m.with({ label: name });
      });
    const graph = (title: string, left: cloudwatch.IMetric[], width = 8) =>
      new cloudwatch.GraphWidget({ title, left, width, height: 6 });
    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: `chronos-${props.stage}`,
      defaultInterval: Duration.hours(3),
    });
    dashboard.addWidgets(
      graph(
        'Executions by outcome (per minute)',
        CHRONOS_METRICS.outcomes.map((name) => custom(name, 'Sum')),
      ),
      graph('Start lag p50 / p99 (ms)', [
        custom(CHRONOS_METRICS.startLag, 'p50'),
        custom(CHRONOS_METRICS.startLag, 'p99'),
      ]),
      graph('HTTP duration p50 / p99 (ms)', [
        custom(CHRONOS_METRICS.httpDuration, 'p50'),
        custom(CHRONOS_METRICS.httpDuration, 'p99'),
      ]),
    );
    // One row of queue depths, one graph per lane: a flood in one lane must not hide another's.
    dashboard.addWidgets(
      ...PRIORITIES.map((lane) => {
        const queue = props.dispatchLanes[lane].queue;
        return graph(`Dispatch queue depth: ${lane} lane`, [
          queue.metricApproximateNumberOfMessagesVisible({ period: minute, label: 'released' }),
          queue.metricApproximateNumberOfMessagesNotVisible({ period: minute, label: 'in flight' }),
          queue.metric('ApproximateNumberOfMessagesDelayed', { period: minute, label: 'delayed' }),
        ]);
      }),
    );
    dashboard.addWidgets(
      graph(
        'Oldest dispatch message per lane (s)',
        PRIORITIES.map((lane) =>
          props.dispatchLanes[lane].queue.metricApproximateAgeOfOldestMessage({
            period: minute,
            statistic: 'Maximum',
            label: lane,
          }),
        ),
      ),
      graph('Dead-letter queue depth per lane and runs dead-lettered', [
        custom(CHRONOS_METRICS.deadLettered, 'Sum'),
        ...PRIORITIES.map((lane) =>
          props.dispatchLanes[lane].deadLetterQueue.metricApproximateNumberOfMessagesVisible({
            period: minute,
            statistic: 'Maximum',
            label: `${lane} lane DLQ`,
          }),
        ),
      ]),
    );
    dashboard.addWidgets(
      graph('Scanner duration (ms) and runs materialized', [
        custom(CHRONOS_METRICS.scannerDuration, 'Maximum'),
        custom(CHRONOS_METRICS.scannerMaterialized, 'Sum'),
        custom(CHRONOS_METRICS.scannerShardLag, 'Maximum'),
      ]),
      graph('Isolated failures: shards failing, jobs quarantined, records set aside', [
        custom(CHRONOS_METRICS.scannerShardFailures, 'Sum'),
        custom(CHRONOS_METRICS.jobsQuarantined, 'Sum'),
        custom(CHRONOS_METRICS.recordsSetAside, 'Sum'),
        custom(CHRONOS_METRICS.streamRunsRedriven, 'Sum'),
        custom(CHRONOS_METRICS.streamRecordsLost, 'Sum'),
        ...[...props.failureQueues.entries()].map(([name, queue]) =>
          queue.metricNumberOfMessagesSent({ period: minute, statistic: 'Sum', label: `${name} failures` }),
        ),
      ]),
      graph('Completion stream iterator age (ms)', [
        props.completionFunction.metric('IteratorAge', { period: minute, statistic: 'Maximum' }),
      ]),
      graph(
        'DynamoDB throttled events',
        [...props.tables.entries()].flatMap(([name, table]) => [
          table.metric('ReadThrottleEvents', { period: minute, statistic: 'Sum', label: `${name} reads` }),
          table.metric('WriteThrottleEvents', { period: minute, statistic: 'Sum', label: `${name} writes` }),
        ]),
      ),
    );
    dashboard.addWidgets(
      graph(
        'Lambda errors',
        perFunction((fn) => fn.metricErrors({ period: minute, statistic: 'Sum' })),
      ),
      graph(
        'Lambda throttles',
        perFunction((fn) => fn.metricThrottles({ period: minute, statistic: 'Sum' })),
      ),
      graph(
        'Lambda concurrency',
        perFunction((fn) => fn.metric('ConcurrentExecutions', { period: minute, statistic: 'Maximum' })),
      ),
    );
    return dashboard;
  }
}
