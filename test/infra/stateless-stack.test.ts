import { Match, Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { CALLBACK_KEYS_CONTEXT } from '#adapters/dynamodb/callback-key-store';
import { JOBS_TABLE, RUNS_TABLE } from '#adapters/dynamodb/table-definitions';
import { ENV } from '#adapters/environment';
import { OBSERVABILITY_ENV } from '#adapters/observability-environment';
import { ROUTES } from '#handlers/api/routes';
import { COMPLETION_FILTER_PATTERNS } from '#handlers/completion-filter';
import type { ChronosApp } from '../../lib/app.ts';
import { TABLE_READ_ACTIONS, TABLE_WRITE_ACTIONS } from '../../lib/constructs/chronos-function.ts';
import { NOTIFIER_MAX_RECEIVE_COUNT } from '../../lib/constructs/failure-notice-queue.ts';
import { secondaryIndexNames } from '../../lib/table-indexes.ts';
import { EXECUTOR_TIMEOUT, NOTIFIER_TIMEOUT } from '../../lib/timeouts.ts';
import {
  actionsOn,
  buildChronosAppForProperties,
  CDK_JSON_CONTEXT,
  grantsOf,
  indexesIn,
  logicalIdOf,
  unconditionedKmsActions,
} from './support/chronos-app.ts';

const READ = [...TABLE_READ_ACTIONS].sort();
const READ_WRITE = [...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS].sort();
const SEND = ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'];

let chronos: ChronosApp;
let template: Template;
let jobsArn: RegExp;
let runsArn: RegExp;
let runsStream: RegExp;
let dispatchArn: RegExp;
let tenantsArn: RegExp;
let workflowRunsArn: RegExp;
let noticesArn: RegExp;

beforeAll(() => {
  // Properties only: bundling is exercised by the cdk-nag and `cdk synth` tests.
  chronos = buildChronosAppForProperties({ 'chronos:stage': 'dev' });
  template = Template.fromStack(chronos.stateless);
  const { stateful } = chronos;
  // Cross-stack references become imports whose export names contain the producer's logical id.
  jobsArn = new RegExp(`${logicalIdOf(stateful.jobsTable)}Arn`);
  runsArn = new RegExp(`${logicalIdOf(stateful.runsTable)}Arn`);
  runsStream = new RegExp(`${logicalIdOf(stateful.runsTable)}StreamArn`);
  dispatchArn = new RegExp(`${logicalIdOf(stateful.dispatchQueue)}Arn`);
  tenantsArn = new RegExp(`${logicalIdOf(stateful.tenantsTable)}Arn`);
  workflowRunsArn = new RegExp(`${logicalIdOf(stateful.workflowRunsTable)}Arn`);
  noticesArn = new RegExp(`${logicalIdOf(stateful.failureNoticeQueue)}Arn`);
}, 60_000);

function functionResource(fn: IConstruct | undefined) {
  if (!fn) throw new Error('no such function');
  return template.toJSON().Resources[logicalIdOf(fn)];
}

describe('API functions', () => {
  it.each(ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s gets exactly the table and queue access its route declares',
    (_name, route) => {
      const fn = chronos.stateless.apiHandlers.functions.get(route.handler);
      expect(fn).toBeDefined();
      const grants = grantsOf(template, logicalIdOf(fn?.executionRole as never));
      const expected = (access?: 'read' | 'readWrite') => (access === 'read' ? READ : access ? READ_WRITE : []);

      expect(actionsOn(grants, jobsArn)).toEqual(expected(route.access.jobs));
      expect(actionsOn(grants, runsArn)).toEqual(expected(route.access.runs));
      expect(actionsOn(grants, workflowRunsArn)).toEqual(expected(route.access.workflowRuns));
      expect(actionsOn(grants, noticesArn)).toEqual(route.access.sendFailureNotices ? SEND : []);
      const queueReads = route.access.readQueueAttributes ? ['sqs:GetQueueAttributes'] : [];
      expect(actionsOn(grants, dispatchArn)).toEqual(route.access.sendToDispatchQueue ? SEND : queueReads);
      const expectedIndexes = [
        ...(route.access.jobs ? secondaryIndexNames(JOBS_TABLE) : []),
        ...(route.access.runs ? secondaryIndexNames(RUNS_TABLE) : []),
      ];
      expect(indexesIn(grants)).toEqual(expectedIndexes.sort());
      // A Scan and a Query of the tenants' keys and admitted-job counts (the stats) are their own grant: admin-stats-grant.test.ts.
      const tenantIdScan = route.access.listTenantIds ? ['dynamodb:Query', 'dynamodb:Scan'] : [];
      expect(actionsOn(grants, tenantsArn)).toEqual([...expected(route.access.tenants), ...tenantIdScan].sort());
      // GetMetricData takes no resource: '*' (CDK merges it with X-Ray's '*' statement), and only
      // where the route reads the queues' age.
      const metricGrants = grants.filter((g) => g.actions.some((a) => a.startsWith('cloudwatch:')));
      expect(metricGrants.flatMap((g) => g.actions.filter((a) => a.startsWith('cloudwatch:')))).toEqual(
        route.access.readQueueAgeMetric ? ['cloudwatch:GetMetricData'] : [],
      );
      for (const grant of metricGrants) expect(grant.resources).toEqual(['"*"']);
      // Sealing routes may only generate data keys: never Decrypt, never Encrypt with the key itself.
      expect(unconditionedKmsActions(grants)).toEqual(route.access.sealSecrets ? ['kms:GenerateDataKey'] : []);
      // The callback routes open the callback token keys: Decrypt under their encryption context only.
      expect(grants.filter((g) => g.condition !== undefined && g.actions.some((a) => a.startsWith('kms:')))).toEqual(
        route.access.openCallbackKeys
          ? [
              {
                actions: ['kms:Decrypt'],
                resources: [expect.any(String)],
                condition: { StringEquals: { 'kms:EncryptionContext:purpose': CALLBACK_KEYS_CONTEXT.purpose } },
              },
            ]
          : [],
      );

      const env = functionResource(fn).Properties.Environment.Variables;
      expect(ENV.tenantsTable in env).toBe(Boolean(route.access.tenants || route.access.listTenantIds));
      expect(ENV.secretsKmsKeyId in env).toBe(Boolean(route.access.sealSecrets || route.access.openCallbackKeys));
      expect(env[ENV.quotaMaxActiveJobs]).toBe(String(chronos.config.quotas.maxActiveJobs));
      expect(ENV.jobsTable in env).toBe(Boolean(route.access.jobs));
      expect(ENV.runsTable in env).toBe(Boolean(route.access.runs));
      expect(ENV.workflowRunsTable in env).toBe(Boolean(route.access.workflowRuns));
      expect(ENV.dispatchQueueUrl in env).toBe(Boolean(route.access.sendToDispatchQueue));
      expect(ENV.failureNoticeQueueUrl in env).toBe(Boolean(route.access.sendFailureNotices));
      expect(env[ENV.dueShardCount]).toBe(String(chronos.config.dueShardCount));
    },
  );

  it('lets only the system view read CloudWatch metrics, and gives it the queue URLs the metric is named after', () => {
    const readers = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((policy) =>
        policy.Properties.PolicyDocument.Statement.some((statement: { Action: string | string[] }) =>
          ([] as string[]).concat(statement.Action).some((action) => action.startsWith('cloudwatch:')),
        ),
      )
      .flatMap((policy) => policy.Properties.Roles);
    const system = chronos.stateless.apiHandlers.functions.get('monitoring-system');
    expect(readers).toEqual([{ Ref: logicalIdOf(system?.executionRole as never) }]);
    const env = functionResource(system).Properties.Environment.Variables;
    expect(env[OBSERVABILITY_ENV.monitoredDispatchQueueUrl]).toBeDefined();
    expect(env[OBSERVABILITY_ENV.monitoredDeadLetterQueueUrl]).toBeDefined();
  });

  it('wires one method per route, behind the authorizer exactly when the route says so', () => {
    for (const route of ROUTES) {
      const method = chronos.stateless.api.methods.get(`${route.method} ${route.path}`);
      expect(method, `${route.method} ${route.path}`).toBeDefined();
      const props = template.toJSON().Resources[logicalIdOf(method as never)].Properties;
      expect(props.HttpMethod).toBe(route.method);
      expect(props.AuthorizationType).toBe(route.authorized ? 'CUSTOM' : 'NONE');
      expect(props.AuthorizerId !== undefined).toBe(route.authorized);
      expect(props.RequestValidatorId).toBeDefined();
      expect(props.Integration.Type).toBe('AWS_PROXY');
    }
  });

  it('has API Gateway refuse only a body that is not a JSON object, so the handler names every other problem', () => {
    const withBody = ROUTES.filter((r) => r.bodySchema);
    expect(withBody.length).toBeGreaterThan(0);
    template.hasResourceProperties('AWS::ApiGateway::RequestValidator', {
      ValidateRequestBody: true,
      ValidateRequestParameters: true,
    });
    for (const route of withBody) {
      const method = chronos.stateless.api.methods.get(`${route.method} ${route.path}`);
      const props = template.toJSON().Resources[logicalIdOf(method as never)].Properties;
      const modelRef = props.RequestModels['application/json'];
      const model = template.toJSON().Resources[modelRef.Ref];
      expect(model.Type).toBe('AWS::ApiGateway::Model');
      // No properties, required or bounds: a model failure is one field-less BAD_REQUEST_BODY on AWS.
      expect(model.Properties.Schema).toEqual({
        $schema: 'http://json-schema.org/draft-04/schema#',
        title: expect.any(String),
        description: expect.any(String),
        type: 'object',
      });
    }
  });

  it('requires the path parameters of parameterized routes', () => {
    const route = ROUTES.find((r) => r.path.includes('{id}'));
    const method = chronos.stateless.api.methods.get(`${route?.method} ${route?.path}`);
    const props = template.toJSON().Resources[logicalIdOf(method as never)].Properties;
    expect(props.RequestParameters).toEqual({ 'method.request.path.id': true });
  });
});

describe('authorizer', () => {
  it('is a REQUEST authorizer on the Authorization header with a short cache', () => {
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      IdentitySource: 'method.request.header.Authorization',
      AuthorizerResultTtlInSeconds: 30,
    });
  });

  it('may only read items of the tenants table: no other table, queue or key, no token in its environment', () => {
    const fn = chronos.stateless.authorizer.function;
    const env = functionResource(fn).Properties.Environment.Variables;
    expect(env[ENV.tenantsTable]).toBeDefined();
    expect(Object.keys(env).filter((name) => /^DEV_|TOKEN_SHA256|TENANT_ID/.test(name))).toEqual([]);
    const grants = grantsOf(template, logicalIdOf(fn.executionRole));
    const tenantsArn = new RegExp(`${logicalIdOf(chronos.stateful.tenantsTable)}Arn`);
    expect(actionsOn(grants, tenantsArn)).toEqual(READ);
    expect(
      grants
        .flatMap((g) => g.actions)
        .filter((a) => /^(dynamodb|sqs|kms):/.test(a))
        .sort(),
    ).toEqual(READ);
  });
});

describe('API stage and gateway responses', () => {
  it('throttles the stage, traces it and writes JSON access logs', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: chronos.config.stage,
      TracingEnabled: true,
      AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('^\\{"requestId":') },
      MethodSettings: Match.arrayWith([
        Match.objectLike({
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: chronos.config.apiThrottle.rateLimit,
          ThrottlingBurstLimit: chronos.config.apiThrottle.burstLimit,
          LoggingLevel: 'ERROR',
        }),
      ]),
    });
    const format = template.findResources('AWS::ApiGateway::Stage');
    const accessLogFormat = Object.values(format)[0]?.Properties.AccessLogSetting.Format;
    expect(() => JSON.parse(accessLogFormat)).not.toThrow();
  });

  it.each(['UNAUTHORIZED', 'ACCESS_DENIED', 'BAD_REQUEST_BODY', 'DEFAULT_4XX', 'DEFAULT_5XX'])(
    'answers %s in the Chronos error shape',
    (type) => {
      const responses = template.findResources('AWS::ApiGateway::GatewayResponse', {
        Properties: { ResponseType: type },
      });
      const [response] = Object.values(responses);
      const body: string = response?.Properties.ResponseTemplates['application/json'];
      // Render the VTL variables the way API Gateway would, then parse.
      const rendered = body
        .replaceAll('$context.error.messageString', '"some message"')
        .replaceAll(/\$context\.error\.[a-zA-Z]+/g, 'X');
      const parsed = JSON.parse(rendered);
      expect(parsed).toEqual({
        error: { code: expect.any(String), message: expect.any(String), details: expect.any(Array) },
      });
    },
  );

  it('configures no CORS unless origins are given', () => {
    const options = Object.values(template.findResources('AWS::ApiGateway::Method')).filter(
      (m) => m.Properties.HttpMethod === 'OPTIONS',
    );
    expect(options).toHaveLength(0);
  });
});

describe('scanner', () => {
  it('runs every minute from EventBridge Scheduler with bounded retries and a dead-letter queue', () => {
    const { scanner } = chronos.stateless;
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(1 minute)',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: {
        Arn: { 'Fn::GetAtt': [logicalIdOf(scanner.function), 'Arn'] },
        RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 60 },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [logicalIdOf(scanner.failureQueue), 'Arn'] } },
      },
    });
  });

  it('sends asynchronous failures to its failure queue without retrying a stale tick', () => {
    const { scanner } = chronos.stateless;
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: logicalIdOf(scanner.function) },
      MaximumRetryAttempts: 0,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [logicalIdOf(scanner.failureQueue), 'Arn'] } } },
    });
  });

  it('reads and writes both tables, queries only the due-index, the sweep and deadline indexes, and sends to the dispatch queue', () => {
    const { scanner } = chronos.stateless;
    const grants = grantsOf(template, logicalIdOf(scanner.function.executionRole));
    expect(actionsOn(grants, jobsArn)).toEqual(READ_WRITE);
    expect(actionsOn(grants, runsArn)).toEqual(READ_WRITE);
    expect(actionsOn(grants, dispatchArn)).toEqual(SEND);
    expect(indexesIn(grants)).toEqual(
      [JOBS_TABLE.dueIndex.name, RUNS_TABLE.sweepIndex.name, RUNS_TABLE.deadlineIndex.name].sort(),
    );
    const env = functionResource(scanner.function).Properties.Environment.Variables;
    expect(env[ENV.scanHorizonSeconds]).toBe(String(chronos.config.scanHorizonSeconds));
    expect(functionResource(scanner.function).Properties.Timeout).toBe(50);
  });
});

describe('executor', () => {
  it('consumes the dispatch queue in batches of ten, with no batching window, partial failures and bounded concurrency', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::ImportValue': Match.stringLikeRegexp(dispatchArn.source) },
      BatchSize: 10,
      // A window would hold a message released just before its due second past that second.
      MaximumBatchingWindowInSeconds: Match.absent(),
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: chronos.config.executorMaxConcurrency },
    });
  });

  it('reserves concurrency only when configured', () => {
    const { executor } = chronos.stateless;
    expect(functionResource(executor.function).Properties.ReservedConcurrentExecutions).toBeUndefined();
    const devBlock = (CDK_JSON_CONTEXT['chronos:stages'] as Record<string, object>).dev;
    const reserved = buildChronosAppForProperties({
      // At least the lanes' maxima together: 5 (high) + 5 + 3 (low).
      'chronos:stages': { dev: { ...devBlock, executorMaxConcurrency: 5, executorReservedConcurrency: 13 } },
    });
    Template.fromStack(reserved.stateless).hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('executor'),
      ReservedConcurrentExecutions: 13,
    });
  }, 60_000);

  it('reads jobs, writes runs and its tenant slots, opens secrets, and sends only throttled runs back', () => {
    const { executor } = chronos.stateless;
    const grants = grantsOf(template, logicalIdOf(executor.function.executionRole));
    // Reads jobs, and updates only their in-flight marker (overlap: "forbid"): no put, no delete.
    expect(actionsOn(grants, jobsArn)).toEqual([...READ, 'dynamodb:UpdateItem'].sort());
    expect(actionsOn(grants, runsArn)).toEqual(READ_WRITE);
    expect(actionsOn(grants, tenantsArn)).toEqual(READ_WRITE);
    // A run of a tenant at its in-flight cap is sent again with a short delay (tenant-run-cap.ts).
    expect(actionsOn(grants, dispatchArn)).toContain('sqs:SendMessage');
    expect(actionsOn(grants, dispatchArn)).toContain('sqs:ReceiveMessage');
    // A claimed run's message is hidden until its lease ends (batch-lease-visibility.ts).
    expect(actionsOn(grants, dispatchArn)).toContain('sqs:ChangeMessageVisibility');
    // Unconditioned: Decrypt only (the callback token keys' GenerateDataKey is under their context: callback-grants.test.ts).
    expect(unconditionedKmsActions(grants)).toEqual(['kms:Decrypt']);
    expect(indexesIn(grants)).toEqual([]);
    expect(functionResource(executor.function).Properties.Timeout).toBe(EXECUTOR_TIMEOUT.toSeconds());
    const env = functionResource(executor.function).Properties.Environment.Variables;
    expect(ENV.dispatchQueueUrl in env).toBe(true);
    expect(env[ENV.quotaMaxConcurrentRuns]).toBe(String(chronos.config.quotas.maxConcurrentRuns));
  });

  it("tells the executor the most calls its fleet can have in flight: the lanes' maximum concurrency together × batch size", () => {
    const env = functionResource(chronos.stateless.executor.function).Properties.Environment.Variables;
    const { executorHighMaxConcurrency, executorMaxConcurrency, executorLowMaxConcurrency } = chronos.config;
    expect(env[ENV.executorMaxCallsInFlight]).toBe(
      String((executorHighMaxConcurrency + executorMaxConcurrency + executorLowMaxConcurrency) * 10),
    );
    const devBlock = (CDK_JSON_CONTEXT['chronos:stages'] as Record<string, object>).dev;
    const larger = buildChronosAppForProperties({
      'chronos:stages': {
        dev: { ...devBlock, executorHighMaxConcurrency: 6, executorMaxConcurrency: 40, executorLowMaxConcurrency: 4 },
      },
    });
    Template.fromStack(larger.stateless).hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('executor'),
      Environment: { Variables: Match.objectLike({ [ENV.executorMaxCallsInFlight]: '500' }) },
    });
  }, 60_000);
});

describe('early release (stage config earlyRelease)', () => {
  const LEAD = [ENV.dispatchLeadMs, ENV.dispatchReadyPerSecond, ENV.dispatchMaxLeadMs];

  it('is off by default: no function is told to release runs early', () => {
    type Resource = { Type: string; Properties: { Environment?: { Variables?: Record<string, unknown> } } };
    for (const resource of Object.values(template.toJSON().Resources) as Resource[]) {
      if (resource.Type !== 'AWS::Lambda::Function') continue;
      for (const name of LEAD) expect(resource.Properties.Environment?.Variables?.[name]).toBeUndefined();
    }
  });

  it('when set, tells every function that sends runs — the scanner, the completion handler, the API — the same lead', () => {
    const devBlock = (CDK_JSON_CONTEXT['chronos:stages'] as Record<string, object>).dev;
    const early = buildChronosAppForProperties({
      'chronos:stages': {
        dev: { ...devBlock, earlyRelease: { baseLeadMs: 1_000, readyPerSecond: 500, maxLeadMs: 5_000 } },
      },
    });
    const earlyTemplate = Template.fromStack(early.stateless).toJSON().Resources;
    const { scanner, completion, apiHandlers } = early.stateless;
    for (const fn of [scanner.function, completion.function, apiHandlers.functions.get('create-job')]) {
      const env = earlyTemplate[logicalIdOf(fn as IConstruct)].Properties.Environment.Variables;
      expect([env[ENV.dispatchLeadMs], env[ENV.dispatchReadyPerSecond], env[ENV.dispatchMaxLeadMs]]).toEqual([
        '1000',
        '500',
        '5000',
      ]);
    }
  }, 60_000);
});

describe("Chronos' own API host", () => {
  it('is known to every function that checks or calls a target URL: the API handlers, the executor, the completion', () => {
    const { apiHandlers, executor, completion, api } = chronos.stateless;
    const restApiId = chronos.stateless.resolve(api.api.restApiId);
    for (const fn of [...apiHandlers.functions.values(), executor.function, completion.function]) {
      const hosts = functionResource(fn).Properties.Environment.Variables[ENV.chronosApiHosts];
      expect(JSON.stringify(hosts)).toContain(JSON.stringify(restApiId));
      expect(JSON.stringify(hosts)).toContain('.execute-api.');
    }
  });

  it("adds the stage's apiHostAliases (a custom domain) to it", () => {
    const devBlock = (CDK_JSON_CONTEXT['chronos:stages'] as Record<string, object>).dev;
    const aliased = buildChronosAppForProperties({
      'chronos:stages': { dev: { ...devBlock, apiHostAliases: ['Chronos.Example.com'] } },
    });
    const functions = Template.fromStack(aliased.stateless).findResources('AWS::Lambda::Function', {
      Properties: { Description: Match.stringLikeRegexp('executor') },
    });
    const [executor] = Object.values(functions);
    expect(JSON.stringify(executor?.Properties.Environment.Variables[ENV.chronosApiHosts])).toContain(
      ',chronos.example.com',
    );
  }, 60_000);
});

describe('completion handler', () => {
  it('reads the runs stream from the start, filtered to terminal and queue transitions, with bounded retries', () => {
    const { completion } = chronos.stateless;
    // Lambda's default quota of filters per event source mapping.
    expect(COMPLETION_FILTER_PATTERNS.length).toBeLessThanOrEqual(5);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::ImportValue': Match.stringLikeRegexp(runsStream.source) },
      StartingPosition: 'TRIM_HORIZON',
      // Three records per run: large batches, each counted in one aggregates transaction.
      BatchSize: 100,
      MaximumBatchingWindowInSeconds: 1,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 5,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ParallelizationFactor: chronos.config.completionParallelizationFactor,
      FilterCriteria: { Filters: COMPLETION_FILTER_PATTERNS.map((p) => ({ Pattern: JSON.stringify(p) })) },
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [logicalIdOf(completion.failureQueue), 'Arn'] } },
      },
    });
  });

  it('writes jobs and runs (next attempts of failed runs), sends retries, and may read the runs stream', () => {
    const { completion } = chronos.stateless;
    const grants = grantsOf(template, logicalIdOf(completion.function.executionRole));
    expect(actionsOn(grants, jobsArn)).toEqual(READ_WRITE);
    expect(actionsOn(grants, runsArn)).toEqual(READ_WRITE);
    expect(actionsOn(grants, runsStream)).toEqual(
      expect.arrayContaining(['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator']),
    );
    expect(actionsOn(grants, dispatchArn)).toEqual(expect.arrayContaining(['sqs:SendMessage']));
    expect(indexesIn(grants)).toEqual([]);
  });
});

describe('signing secrets', () => {
  it("are in no function environment and in no Secrets Manager secret: each tenant's are sealed in the tenants table", () => {
    const functions = template.findResources('AWS::Lambda::Function');
    const names = Object.values(functions).flatMap((fn) => Object.keys(fn.Properties.Environment?.Variables ?? {}));
    expect(names.filter((name) => /SIGNING/i.test(name))).toEqual([]);
    expect(JSON.stringify(functions)).not.toMatch(/secretsmanager/);
    Template.fromStack(chronos.stateful).resourceCountIs('AWS::SecretsManager::Secret', 0);
  });

  it.each([
    ['executor', () => chronos.stateless.executor.function],
    ['notifier', () => chronos.stateless.notifier.function],
  ])('are read by the %s from the tenants table and opened with kms:Decrypt only', (_, fnOf) => {
    const fn = fnOf();
    const env = functionResource(fn).Properties.Environment.Variables;
    expect(env).toMatchObject({ [ENV.tenantsTable]: expect.anything(), [ENV.secretsKmsKeyId]: expect.anything() });
    const grants = grantsOf(template, logicalIdOf(fn.executionRole as never));
    expect(actionsOn(grants, tenantsArn)).toEqual(expect.arrayContaining(['dynamodb:Query']));
    // Without a condition; the executor's GenerateDataKey for the callback token keys is under their context only.
    expect(unconditionedKmsActions(grants)).toEqual(['kms:Decrypt']);
    expect(
      grants
        .filter((g) => g.condition !== undefined)
        .flatMap((g) => g.actions)
        .filter((a) => a.startsWith('kms:') && a !== 'kms:GenerateDataKey'),
    ).toEqual([]);
  });
});

describe('dead-letter handler', () => {
  it('consumes the dispatch dead-letter queue with partial batch failures', () => {
    const { deadLetters } = chronos.stateless;
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalIdOf(deadLetters.function) },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: { 'Fn::ImportValue': Match.stringLikeRegexp('DispatchDeadLetters') },
    });
  });

  it('only writes runs: no jobs, no queue sends, no indexes', () => {
    const grants = grantsOf(template, logicalIdOf(chronos.stateless.deadLetters.function.executionRole));
    expect(actionsOn(grants, runsArn)).toEqual(READ_WRITE);
    expect(actionsOn(grants, jobsArn)).toEqual([]);
    expect(actionsOn(grants, dispatchArn).filter((a) => a.startsWith('sqs:Send'))).toEqual([]);
    expect(indexesIn(grants)).toEqual([]);
  });
});

describe('notifier', () => {
  it('consumes the failure-notice queue with partial batch failures; the queue redrives to an alarmed dead-letter queue', () => {
    const { notifier } = chronos.stateless;
    const { failureNoticeQueue, failureNoticeDeadLetterQueue } = chronos.stateful;
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalIdOf(notifier.function) },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: { 'Fn::ImportValue': Match.stringLikeRegexp(`${logicalIdOf(failureNoticeQueue)}Arn`) },
    });
    Template.fromStack(chronos.stateful).hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: NOTIFIER_TIMEOUT.toSeconds() * 6,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [logicalIdOf(failureNoticeDeadLetterQueue), 'Arn'] },
        maxReceiveCount: NOTIFIER_MAX_RECEIVE_COUNT,
      },
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        {
          Name: 'QueueName',
          Value: { 'Fn::ImportValue': Match.stringLikeRegexp(`${logicalIdOf(failureNoticeDeadLetterQueue)}QueueName`) },
        },
      ],
      Threshold: 0,
      AlarmActions: [{ Ref: logicalIdOf(chronos.stateless.observability.topic) }],
    });
  });

  it("reads jobs, and the tenants' sealed signing secrets, and nothing else of the tables; receives and hides notices, never sends them", () => {
    const { notifier } = chronos.stateless;
    const grants = grantsOf(template, logicalIdOf(notifier.function.executionRole));
    const queueArn = new RegExp(`${logicalIdOf(chronos.stateful.failureNoticeQueue)}Arn`);
    expect(actionsOn(grants, jobsArn)).toEqual(READ);
    expect(actionsOn(grants, runsArn)).toEqual([]);
    expect(actionsOn(grants, tenantsArn)).toEqual(READ);
    expect(actionsOn(grants, dispatchArn)).toEqual([]);
    expect(actionsOn(grants, queueArn)).toEqual(
      expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']),
    );
    expect(actionsOn(grants, queueArn)).not.toContain('sqs:SendMessage');
    expect(indexesIn(grants)).toEqual([]);
    const env = functionResource(notifier.function).Properties.Environment.Variables;
    expect(JSON.stringify(env[ENV.failureNoticeQueueUrl])).toContain(logicalIdOf(chronos.stateful.failureNoticeQueue));
  });

  it('is where completion sends notices: completion may send to the queue, and holds no signing secret', () => {
    const { completion } = chronos.stateless;
    const grants = grantsOf(template, logicalIdOf(completion.function.executionRole));
    expect(actionsOn(grants, new RegExp(`${logicalIdOf(chronos.stateful.failureNoticeQueue)}Arn`))).toEqual(SEND);
    const env = functionResource(completion.function).Properties.Environment.Variables;
    expect(JSON.stringify(env[ENV.failureNoticeQueueUrl])).toContain(logicalIdOf(chronos.stateful.failureNoticeQueue));
    // It cannot open a tenant's signing secrets: no secrets key.
    expect(env[ENV.secretsKmsKeyId]).toBeUndefined();
  });
});

describe('CORS', () => {
  it('adds preflight methods for the configured origins only', () => {
    const devBlock = (CDK_JSON_CONTEXT['chronos:stages'] as Record<string, object>).dev;
    const cors = buildChronosAppForProperties({
      'chronos:stages': { dev: { ...devBlock, corsAllowOrigins: ['https://app.example.com'] } },
    });
    const corsTemplate = Template.fromStack(cors.stateless);
    corsTemplate.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'OPTIONS',
      AuthorizationType: 'NONE',
      Integration: Match.objectLike({
        IntegrationResponses: [
          Match.objectLike({
            ResponseParameters: Match.objectLike({
              'method.response.header.Access-Control-Allow-Origin': "'https://app.example.com'",
            }),
          }),
        ],
      }),
    });
  }, 60_000);
});
