/**
 * Defects only AWS would show (issue #17, section 2), each checked on the synthesized template:
 * alarms on metrics that move and that reach a person, a consumer for the completion stream's
 * failures, the executor's short comeback before a claim, no secret in a function's environment,
 * API Gateway metrics and logs, CORS on every answer, and the LocalStack context of deploy:local.
 */
import { createHash } from 'node:crypto';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '#adapters/environment';
import { CORS_EXPOSED_HEADERS } from '#handlers/api/cors';
import { comeBackDelaySeconds } from '#handlers/executor';
import { STREAM_FAILURE_MAX_RECEIVES, STREAM_FAILURE_METRICS } from '#handlers/stream-failures';
import type { ChronosApp } from '../../lib/app.ts';
import { CORS_ALLOW_HEADERS } from '../../lib/constructs/scheduler-api.ts';
import {
  actionsOn,
  buildChronosAppForProperties,
  CDK_JSON_CONTEXT,
  grantsOf,
  isCdkHandler,
  logicalIdOf,
} from './support/chronos-app.ts';

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON walked by the assertions
type Resource = { Type: string; Properties: Record<string, any>; DependsOn?: string[] };

const STAGES = CDK_JSON_CONTEXT['chronos:stages'] as Record<string, Record<string, unknown>>;
const withDev = (block: Record<string, unknown>) => ({
  'chronos:stages': { ...STAGES, dev: { ...STAGES.dev, ...block } },
});

let chronos: ChronosApp;
let template: Template;
let resources: Record<string, Resource>;

beforeAll(() => {
  chronos = buildChronosAppForProperties({ 'chronos:stage': 'dev', 'chronos:alarmEmail': 'ops@example.com' });
  template = Template.fromStack(chronos.stateless);
  resources = template.toJSON().Resources;
}, 60_000);

const ofType = (all: Record<string, Resource>, type: string) =>
  Object.entries(all).filter(([, resource]) => resource.Type === type);
function propsOf(construct: object): Resource['Properties'] {
  const found = resources[logicalIdOf(construct as never)];
  if (!found) throw new Error(`no resource for ${String(construct)}`);
  return found.Properties;
}

describe('the completion stream failures', () => {
  it('are consumed one message at a time, with partial batch failures, by the stream-failure handler', () => {
    const { completion, streamFailures } = chronos.stateless;
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalIdOf(streamFailures.function) },
      EventSourceArn: { 'Fn::GetAtt': [logicalIdOf(completion.failureQueue), 'Arn'] },
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    // The queue's messages outlast the stream's 24 h: a range still readable is never lost by waiting.
    expect(propsOf(completion.failureQueue).MessageRetentionPeriod).toBeGreaterThan(24 * 3600);
    expect(propsOf(completion.failureQueue).VisibilityTimeout ?? 30).toBeGreaterThanOrEqual(
      propsOf(streamFailures.function).Timeout,
    );
  });

  it('are read back from the runs stream by sequence number: GetShardIterator and GetRecords on that stream only', () => {
    const { streamFailures } = chronos.stateless;
    const grants = grantsOf(template, logicalIdOf(streamFailures.function.executionRole));
    const runsStream = new RegExp(`${logicalIdOf(chronos.stateful.runsTable)}StreamArn`);
    expect(actionsOn(grants, runsStream)).toEqual(['dynamodb:GetRecords', 'dynamodb:GetShardIterator']);
    const streamGrants = grants.filter((g) =>
      g.actions.some((a) => a.startsWith('dynamodb:Get') && a !== 'dynamodb:GetItem'),
    );
    for (const grant of streamGrants) for (const resource of grant.resources) expect(resource).toMatch(runsStream);
    const env = propsOf(streamFailures.function).Environment.Variables;
    expect(JSON.stringify(env[ENV.runsStreamArn])).toMatch(runsStream);
  });

  it('complete their runs with what the completion handler may touch, and nothing more', () => {
    const { completion, streamFailures } = chronos.stateless;
    const own = grantsOf(template, logicalIdOf(streamFailures.function.executionRole));
    const completions = grantsOf(template, logicalIdOf(completion.function.executionRole));
    const { jobsTable, runsTable, metricsTable, workflowRunsTable } = chronos.stateful;
    for (const table of [jobsTable, runsTable, metricsTable, workflowRunsTable]) {
      const arn = new RegExp(`${logicalIdOf(table)}Arn`);
      expect(actionsOn(own, arn), table.node.id).toEqual(actionsOn(completions, arn));
    }
    for (const queue of [chronos.stateful.dispatchQueue, chronos.stateful.failureNoticeQueue]) {
      const arn = new RegExp(`${logicalIdOf(queue)}Arn`);
      expect(actionsOn(own, arn)).toEqual(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']);
    }
  });

  it('retry a failure that may clear a bounded number of times', () => {
    expect(STREAM_FAILURE_MAX_RECEIVES).toBeGreaterThanOrEqual(2);
    expect(STREAM_FAILURE_MAX_RECEIVES).toBeLessThanOrEqual(10);
  });
});

describe('alarms', () => {
  it('fire on any message sent to the completion stream failure queue and to the scanner failure queue', () => {
    const { completion, scanner, observability } = chronos.stateless;
    const queues = [
      ['CompletionStream', completion.failureQueue],
      ['Scanner', scanner.failureQueue],
    ] as const;
    for (const [name, queue] of queues) {
      const alarm = observability.alarms.failureQueues.get(name);
      expect(alarm, name).toBeDefined();
      const props = propsOf(alarm as object);
      expect(props).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'NumberOfMessagesSent',
        Statistic: 'Sum',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
      });
      expect(props.Dimensions).toEqual([
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalIdOf(queue), 'QueueName'] } },
      ]);
    }
  });

  it('fire on any stream record lost, on the name the stream-failure handler emits', () => {
    const props = propsOf(chronos.stateless.observability.alarms.streamRecordsLost);
    expect(props).toMatchObject({ MetricName: STREAM_FAILURE_METRICS.lost, Namespace: 'Chronos', Threshold: 0 });
  });

  it('every one, in both stacks, notifies the alarm topic, on alarm and on recovery', () => {
    const topic = { Ref: logicalIdOf(chronos.stateless.observability.topic) };
    const all = [
      ...ofType(resources, 'AWS::CloudWatch::Alarm'),
      ...ofType(Template.fromStack(chronos.stateful).toJSON().Resources, 'AWS::CloudWatch::Alarm'),
    ];
    expect(all.length).toBeGreaterThan(10);
    for (const [id, alarm] of all) {
      expect(alarm.Properties.AlarmActions, id).toEqual([topic]);
      expect(alarm.Properties.OKActions, id).toEqual([topic]);
    }
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
  });

  it('go to an existing topic when the stage names one (alarmTopicArn), and the stack makes none of its own', () => {
    const arn = 'arn:aws:sns:eu-west-1:123456789012:on-call';
    const shared = buildChronosAppForProperties({
      'chronos:alarmTopicArn': arn,
      'chronos:alarmEmail': 'ops@example.com',
    });
    const sharedTemplate = Template.fromStack(shared.stateless);
    sharedTemplate.resourceCountIs('AWS::SNS::Topic', 0);
    const alarms = ofType(sharedTemplate.toJSON().Resources, 'AWS::CloudWatch::Alarm');
    expect(alarms.length).toBeGreaterThan(10);
    for (const [id, alarm] of alarms) expect(alarm.Properties.AlarmActions, id).toEqual([arn]);
    sharedTemplate.hasResourceProperties('AWS::SNS::Subscription', { TopicArn: arn, Endpoint: 'ops@example.com' });
  }, 60_000);
});

describe('a dispatch message that fails before its claim', () => {
  it('comes back within seconds: the executor may change its visibility, and its mapping keeps a failed record in the queue', () => {
    const { executor } = chronos.stateless;
    const grants = grantsOf(template, logicalIdOf(executor.function.executionRole));
    const dispatch = new RegExp(`${logicalIdOf(chronos.stateful.dispatchQueue)}Arn`);
    expect(actionsOn(grants, dispatch)).toContain('sqs:ChangeMessageVisibility');
    // Only a record reported failed stays in the queue with the visibility it was given; a whole
    // failed invocation would leave every record of the batch to the queue's timeout.
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalIdOf(executor.function) },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    const queue = Template.fromStack(chronos.stateful).toJSON().Resources[logicalIdOf(chronos.stateful.dispatchQueue)];
    const visibility = queue?.Properties.VisibilityTimeout as number;
    const receive = (count: number) => ({ attributes: { ApproximateReceiveCount: String(count) } }) as never;
    // The first comeback is seconds, against the queue's half hour: the change is what decides.
    expect(comeBackDelaySeconds(receive(1))).toBeLessThanOrEqual(5);
    expect(visibility).toBeGreaterThan(600);
    // Every comeback up to the dead-letter queue is shorter than the queue's own timeout, and
    // within what ChangeMessageVisibility accepts (12 h).
    const maxReceives = queue?.Properties.RedrivePolicy.maxReceiveCount as number;
    for (let count = 1; count <= maxReceives; count++) {
      expect(comeBackDelaySeconds(receive(count))).toBeLessThan(visibility);
    }
  });
});

describe('function environments', () => {
  /** Names that would hold a secret; their values may only be references to resources. */
  const SECRET_NAME = /TOKEN|SECRET|KEY|PASSWORD|CREDENTIAL|PRIVATE/i;
  /** One-way digests, compared against what a caller sends: knowing one lets nobody in. */
  const DIGEST_NAME = /_SHA256$/;

  it.each(Object.keys(STAGES))(
    'hold no secret in %s, admin token configured',
    (stage) => {
      const adminToken = 'operator-token-that-must-never-be-deployed';
      const app = buildChronosAppForProperties({
        'chronos:stage': stage,
        'chronos:adminTokenSha256': createHash('sha256').update(adminToken).digest('hex'),
      });
      let checked = 0;
      for (const stack of [app.stateful, app.stateless]) {
        const json = JSON.stringify(Template.fromStack(stack).toJSON());
        expect(json).not.toContain(adminToken);
        for (const [id, fn] of ofType(Template.fromStack(stack).toJSON().Resources, 'AWS::Lambda::Function')) {
          const variables: Record<string, unknown> = fn.Properties.Environment?.Variables ?? {};
          for (const [name, value] of Object.entries(variables)) {
            checked++;
            if (!SECRET_NAME.test(name)) continue;
            if (DIGEST_NAME.test(name)) {
              expect(value, `${id} ${name}`).toMatch(/^[0-9a-f]{64}$/);
              continue;
            }
            // A literal here would be the secret itself; a reference (a key's ARN) names where it is.
            expect(typeof value, `${id} ${name} holds a literal`).not.toBe('string');
          }
        }
      }
      expect(checked).toBeGreaterThan(100);
    },
    60_000,
  );
});

describe('API Gateway stage', () => {
  it('keeps detailed (per-method) metrics off by default and on when the stage asks', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([Match.objectLike({ HttpMethod: '*', MetricsEnabled: false })]),
    });
    const detailed = Template.fromStack(buildChronosAppForProperties(withDev({ apiDetailedMetrics: true })).stateless);
    detailed.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([Match.objectLike({ HttpMethod: '*', MetricsEnabled: true })]),
    });
  }, 60_000);

  it('writes its execution logs to a group the stack owns, with the stage retention, made before the stage', () => {
    const { api } = chronos.stateless;
    const logGroup = propsOf(api.executionLogs);
    expect(logGroup.RetentionInDays).toBe(chronos.config.logRetentionDays);
    expect(logGroup.LogGroupName).toEqual({
      'Fn::Join': ['', ['API-Gateway-Execution-Logs_', { Ref: logicalIdOf(api.api) }, `/${chronos.config.stage}`]],
    });
    const [, stage] = ofType(resources, 'AWS::ApiGateway::Stage')[0] ?? [];
    expect(stage?.DependsOn).toContain(logicalIdOf(api.executionLogs));
    expect(propsOf(api.accessLogs).RetentionInDays).toBe(chronos.config.logRetentionDays);
  });
});

describe('CORS with several origins', () => {
  const origins = ['https://app.example.com', 'https://admin.example.com'];
  let cors: Template;
  let corsApp: ChronosApp;

  beforeAll(() => {
    corsApp = buildChronosAppForProperties(withDev({ corsAllowOrigins: origins }));
    cors = Template.fromStack(corsApp.stateless);
  }, 60_000);

  it('answers each allowed origin in the preflight, allowing the headers the API reads and exposing ETag and Retry-After', () => {
    const preflights = ofType(cors.toJSON().Resources, 'AWS::ApiGateway::Method').filter(
      ([, m]) => m.Properties.HttpMethod === 'OPTIONS',
    );
    expect(preflights.length).toBeGreaterThan(5);
    for (const [id, method] of preflights) {
      const [response] = method.Properties.Integration.IntegrationResponses;
      const headers = response.ResponseParameters;
      expect(headers['method.response.header.Access-Control-Allow-Headers'], id).toBe(
        `'${CORS_ALLOW_HEADERS.join(',')}'`,
      );
      for (const header of ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-Match']) {
        expect(headers['method.response.header.Access-Control-Allow-Headers']).toContain(header);
      }
      expect(headers['method.response.header.Access-Control-Expose-Headers']).toBe("'ETag,Retry-After'");
      expect(headers['method.response.header.Vary']).toBe("'Origin'");
      // The first origin is the header's default; the others are echoed when they are the request's.
      const template = response.ResponseTemplates['application/json'] as string;
      expect(template).toContain(`$origin == "${origins[1]}"`);
      expect(template).toContain('responseOverride.header.Access-Control-Allow-Origin = $origin');
    }
  });

  it("tells every API function the allowed origins, so each answer carries the caller's", () => {
    for (const [name, fn] of corsApp.stateless.apiHandlers.functions) {
      const env = cors.toJSON().Resources[logicalIdOf(fn)].Properties.Environment.Variables;
      expect(env[ENV.corsAllowOrigins], name).toBe(origins.join(','));
    }
    // Without CORS, no function hears of it.
    for (const fn of chronos.stateless.apiHandlers.functions.values()) {
      expect(propsOf(fn).Environment.Variables[ENV.corsAllowOrigins]).toBeUndefined();
    }
    expect([...CORS_EXPOSED_HEADERS]).toEqual(['ETag', 'Retry-After']);
  });

  it("gives the gateway's own answers (401, 403, 404, 429) the request's origin and Vary: Origin", () => {
    const responses = ofType(cors.toJSON().Resources, 'AWS::ApiGateway::GatewayResponse');
    expect(responses.length).toBeGreaterThanOrEqual(6);
    for (const [id, response] of responses) {
      expect(response.Properties.ResponseParameters, id).toMatchObject({
        'gatewayresponse.header.Access-Control-Allow-Origin': 'method.request.header.Origin',
        'gatewayresponse.header.Vary': "'Origin'",
      });
    }
  });
});

describe('deploy:local (LocalStack) context', () => {
  it('runs every function on nodejs22.x and x86_64, without WAF, and nothing else changes', () => {
    const local = buildChronosAppForProperties({ 'chronos:localstack': 'true' });
    const localResources = Template.fromStack(local.stateless).toJSON().Resources;
    // Without CloudFront there is no console, nor CDK's handler that deploys it.
    const chronosFunctions = (all: Record<string, Resource>) =>
      ofType(all, 'AWS::Lambda::Function').filter(([id]) => !isCdkHandler(id));
    const functions = ofType(localResources, 'AWS::Lambda::Function');
    expect(functions.length).toBe(chronosFunctions(resources).length);
    expect(ofType(localResources, 'AWS::CloudFront::Distribution')).toHaveLength(0);
    for (const [id, fn] of functions) {
      expect(fn.Properties.Runtime, id).toBe('nodejs22.x');
      expect(fn.Properties.Architectures, id).toEqual(['x86_64']);
    }
    expect(ofType(localResources, 'AWS::WAFv2::WebACL')).toHaveLength(0);
    expect(local.config.dueShardCount).toBe(chronos.config.dueShardCount);
    // Without the context, AWS's runtime and architecture.
    for (const [id, fn] of chronosFunctions(resources)) {
      expect(fn.Properties.Runtime, id).toBe('nodejs24.x');
      expect(fn.Properties.Architectures, id).toEqual(['arm64']);
    }
  }, 60_000);
});

describe('stack outputs (docs/deploy.md reads them after a deploy)', () => {
  it('name the API URL, the dashboard, the alarm topic, and what npm run admin needs', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(Object.keys(outputs)).toEqual(expect.arrayContaining(['ApiUrl', 'DashboardName', 'AlarmTopicArn']));
    expect(outputs.AlarmTopicArn?.Value).toEqual({ Ref: logicalIdOf(chronos.stateless.observability.topic) });
    const stateful = Template.fromStack(chronos.stateful).toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(stateful.TenantsTableName?.Value).toEqual({ Ref: logicalIdOf(chronos.stateful.tenantsTable) });
    expect(stateful.SecretsKeyArn?.Value).toEqual({
      'Fn::GetAtt': [logicalIdOf(chronos.stateful.secretsKey), 'Arn'],
    });
  });
});
