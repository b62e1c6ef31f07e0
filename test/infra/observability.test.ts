/** CDK assertions for monitoring: the metrics table, its grants, the alarms and the dashboard. */
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { METRICS_TABLE } from '#adapters/dynamodb/table-definitions';
import { OBSERVABILITY_ENV } from '#adapters/observability-environment';
import { ROUTES } from '#handlers/api/routes';
import { SCANNER_METRICS } from '#handlers/scanner';
import { SET_ASIDE_METRIC } from '#handlers/set-aside';
import type { ChronosApp } from '../../lib/app.ts';
import { TABLE_READ_ACTIONS, TABLE_WRITE_ACTIONS } from '../../lib/constructs/chronos-function.ts';
import {
  actionsOn,
  buildChronosAppForProperties,
  CDK_JSON_CONTEXT,
  grantsOf,
  isCdkHandler,
  logicalIdOf,
} from './support/chronos-app.ts';

const READ = [...TABLE_READ_ACTIONS].sort();
const READ_WRITE = [...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS].sort();
let chronos: ChronosApp;
let template: Template;
let metricsArn: RegExp;
// biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON
let alarms: Record<string, any>;

beforeAll(() => {
  chronos = buildChronosAppForProperties({ 'chronos:stage': 'dev', 'chronos:alarmEmail': 'ops@example.com' });
  template = Template.fromStack(chronos.stateless);
  metricsArn = new RegExp(`${logicalIdOf(chronos.stateful.metricsTable)}Arn`);
  alarms = template.findResources('AWS::CloudWatch::Alarm');
}, 60_000);

function alarmOf(construct: object) {
  return alarms[logicalIdOf(construct as never)]?.Properties;
}

const topicRef = () => ({ Ref: logicalIdOf(chronos.stateless.observability.topic) });

describe('metrics table', () => {
  it('is keyed by pk/sk with TTL, on demand, in the stateful stack', () => {
    Template.fromStack(chronos.stateful).hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: METRICS_TABLE.partitionKey, KeyType: 'HASH' },
        { AttributeName: METRICS_TABLE.sortKey, KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: METRICS_TABLE.ttlAttribute, Enabled: true },
    });
  });

  it('is written by the completion handler (aggregates) and the scanner (heartbeats)', () => {
    for (const fn of [chronos.stateless.completion.function, chronos.stateless.scanner.function]) {
      expect(actionsOn(grantsOf(template, logicalIdOf(fn.executionRole)), metricsArn)).toEqual(READ_WRITE);
    }
    expect(
      actionsOn(grantsOf(template, logicalIdOf(chronos.stateless.executor.function.executionRole)), metricsArn),
    ).toEqual([]);
  });

  it.each(ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s gets the metrics access its route declares',
    (_n, route) => {
      const fn = chronos.stateless.apiHandlers.functions.get(route.handler);
      const grants = grantsOf(template, logicalIdOf(fn?.executionRole as never));
      const access = route.access.metrics;
      expect(actionsOn(grants, metricsArn)).toEqual(access === 'read' ? READ : access ? READ_WRITE : []);
      const env = template.toJSON().Resources[logicalIdOf(fn as never)].Properties.Environment.Variables;
      expect(OBSERVABILITY_ENV.metricsTable in env).toBe(Boolean(access));
      expect(OBSERVABILITY_ENV.monitoredDeadLetterQueueUrl in env).toBe(Boolean(route.access.readQueueAttributes));
    },
  );
});

describe('health check', () => {
  it('may read every table the executor and the scanner use, and the dispatch queue attributes', () => {
    const fn = chronos.stateless.apiHandlers.functions.get('health');
    const grants = grantsOf(template, logicalIdOf(fn?.executionRole as never));
    const { jobsTable, runsTable, tenantsTable, metricsTable, dispatchQueue } = chronos.stateful;
    for (const table of [jobsTable, runsTable, tenantsTable, metricsTable]) {
      expect(actionsOn(grants, new RegExp(`${logicalIdOf(table)}Arn`)), table.node.id).toEqual(READ);
    }
    expect(actionsOn(grants, new RegExp(`${logicalIdOf(dispatchQueue)}Arn`))).toEqual(['sqs:GetQueueAttributes']);
  });
});

describe('alarms', () => {
  it('notify an SNS topic that mails the configured address', () => {
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: topicRef(),
    });
    expect(Object.keys(alarms).length).toBeGreaterThan(5);
    for (const [id, alarm] of Object.entries(alarms)) expect(alarm.Properties.AlarmActions, id).toEqual([topicRef()]);
  });

  it('fires on any run dead-lettered (a metric that moves: the DLQ is drained within seconds)', () => {
    const props = alarmOf(chronos.stateless.observability.alarms.deadLetters);
    expect(props).toMatchObject({
      MetricName: 'RunsDeadLettered',
      Namespace: 'Chronos',
      Statistic: 'Sum',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(props.Dimensions).toEqual(
      expect.arrayContaining([
        { Name: 'service', Value: 'chronos' },
        { Name: 'stage', Value: 'dev' },
      ]),
    );
    // Not the queue depth, which the dead-letter handler empties before a one-minute maximum sees it.
    expect(props.MetricName).not.toBe('ApproximateNumberOfMessagesVisible');
  });

  it('fires when the oldest dispatch message is older than the SLA', () => {
    expect(alarmOf(chronos.stateless.observability.alarms.oldestMessage)).toMatchObject({
      MetricName: 'ApproximateAgeOfOldestMessage',
      Threshold: 5,
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });

  it('fires when the start-lag p99 is above the SLA', () => {
    expect(alarmOf(chronos.stateless.observability.alarms.startLagP99)).toMatchObject({
      Namespace: 'Chronos',
      MetricName: 'StartLagMs',
      ExtendedStatistic: 'p99',
      Dimensions: expect.arrayContaining([
        { Name: 'service', Value: 'chronos' },
        { Name: 'stage', Value: 'dev' },
      ]),
      Threshold: 5_000,
    });
  });

  it('fires when no scanner pass reported for three minutes', () => {
    expect(alarmOf(chronos.stateless.observability.alarms.scannerHeartbeat)).toMatchObject({
      MetricName: 'ScannerDurationMs',
      Statistic: 'SampleCount',
      Period: 60,
      EvaluationPeriods: 3,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
    });
  });

  it('fires when a scanner shard fails two passes out of three', () => {
    expect(alarmOf(chronos.stateless.observability.alarms.scannerShardFailures)).toMatchObject({
      Namespace: 'Chronos',
      MetricName: SCANNER_METRICS.shardFailures,
      Statistic: 'Sum',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      TreatMissingData: 'notBreaching',
    });
  });

  it('fires when scanner passes keep failing to materialize jobs for five minutes', () => {
    expect(alarmOf(chronos.stateless.observability.alarms.scannerJobFailures)).toMatchObject({
      MetricName: SCANNER_METRICS.jobFailures,
      Statistic: 'Sum',
      Threshold: 0,
      EvaluationPeriods: 5,
      DatapointsToAlarm: 5,
    });
  });

  it('fires on any quarantined job and on any record set aside, on the names the handlers emit', () => {
    const { jobsQuarantined, recordsSetAside } = chronos.stateless.observability.alarms;
    for (const [alarm, metricName] of [
      [jobsQuarantined, SCANNER_METRICS.quarantined],
      [recordsSetAside, SET_ASIDE_METRIC],
    ] as const) {
      expect(alarmOf(alarm)).toMatchObject({
        Namespace: 'Chronos',
        MetricName: metricName,
        Statistic: 'Sum',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 1,
        AlarmActions: [topicRef()],
      });
    }
    expect(alarmOf(jobsQuarantined).AlarmDescription).toContain('GET /v1/jobs/{id}');
  });

  it('fires when the completion stream iterator age is high', () => {
    expect(alarmOf(chronos.stateless.observability.alarms.iteratorAge)).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalIdOf(chronos.stateless.completion.function) } }],
      Threshold: 60_000,
    });
  });

  it('watches the error rate of every function', () => {
    const functions = Object.keys(template.findResources('AWS::Lambda::Function')).filter(
      (id) => !id.startsWith('LogRetention') && !id.startsWith('AWS') && !isCdkHandler(id),
    );
    const errorAlarms = chronos.stateless.observability.alarms.functionErrors;
    expect(errorAlarms.size).toBe(chronos.stateless.apiHandlers.functions.size + 7);
    expect(errorAlarms.size).toBe(functions.length);
    for (const alarm of errorAlarms.values()) {
      const props = alarmOf(alarm);
      expect(props.Threshold).toBe(5);
      expect(props.Metrics.find((m: { Expression?: string }) => m.Expression)?.Expression).toBe(
        '100 * errors / MAX([invocations, 1])',
      );
    }
  });
});

describe('alarm thresholds from the stage configuration', () => {
  const configured = {
    deadLetterMessages: 3,
    oldestMessageSeconds: 45,
    startLagP99Ms: 2_500,
    scannerSilenceMinutes: 5,
    functionErrorRatePercent: 12,
    streamIteratorAgeMs: 120_000,
  };
  let custom: ChronosApp;
  // biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON
  let customAlarms: Record<string, any>;

  beforeAll(() => {
    const stages = CDK_JSON_CONTEXT['chronos:stages'] as Record<string, Record<string, unknown>>;
    custom = buildChronosAppForProperties({
      'chronos:stage': 'dev',
      'chronos:stages': { ...stages, dev: { ...stages.dev, alarms: configured } },
    });
    customAlarms = Template.fromStack(custom.stateless).findResources('AWS::CloudWatch::Alarm');
  }, 60_000);

  const props = (construct: object) => customAlarms[logicalIdOf(construct as never)]?.Properties;

  it('land in the alarms built from them', () => {
    const built = custom.stateless.observability.alarms;
    expect(props(built.deadLetters)).toMatchObject({ Threshold: 3 });
    expect(props(built.oldestMessage)).toMatchObject({ MetricName: 'ApproximateAgeOfOldestMessage', Threshold: 45 });
    expect(props(built.startLagP99)).toMatchObject({ MetricName: 'StartLagMs', Threshold: 2_500 });
    expect(props(built.scannerHeartbeat)).toMatchObject({ EvaluationPeriods: 5, Threshold: 1 });
    expect(props(built.scannerHeartbeat).AlarmDescription).toContain('5 minutes');
    expect(props(built.iteratorAge)).toMatchObject({ MetricName: 'IteratorAge', Threshold: 120_000 });
    for (const alarm of built.functionErrors.values()) expect(props(alarm).Threshold).toBe(12);
  });
});

describe('dashboard', () => {
  it('shows outcomes, lag, duration, queues, scanner, stream, DynamoDB and Lambda health', () => {
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboard?.Properties.DashboardBody);
    for (const title of [
      'Executions by outcome',
      'Start lag p50 / p99',
      'HTTP duration p50 / p99',
      'Dispatch queue depth',
      'Oldest dispatch message',
      'Dead-letter queue depth',
      'Scanner duration (ms) and runs materialized',
      'Isolated failures: shards failing, jobs quarantined, records set aside',
      'Completion stream iterator age',
      'DynamoDB throttled events',
      'Lambda errors',
      'Lambda throttles',
      'Lambda concurrency',
    ]) {
      expect(body, title).toContain(title);
    }
    for (const metric of ['RunsSucceeded', 'RunsFailed', 'RunsRetried', 'RunsDeadLettered', 'RunsSkipped']) {
      expect(body).toContain(metric);
    }
  });
});
