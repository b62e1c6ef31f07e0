/**
 * The workflow-runs table (issue #21): keyed, expired and protected as WORKFLOW_RUNS_TABLE and the
 * runs table say, and reachable only as far as each function's part in the workflow engine needs:
 * the executor and the completion handler get, put and update workflow runs (and batch-read the
 * runs table, a workflow run's task runs); an API route gets exactly what its `access.workflowRuns`
 * declares, on the table alone. The stream-failure handler completes runs as the completion handler
 * does, so it gets what that one gets; the executor, which may end a workflow run it starts, may
 * send its failure notice.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { WORKFLOW_RUNS_TABLE } from '#adapters/dynamodb/table-definitions';
import { ENV } from '#adapters/environment';
import { ROUTES, type Route } from '#handlers/api/routes';
import type { ChronosApp } from '../../lib/app.ts';
import { DEFAULT_CONFIG } from '../../lib/config.ts';
import { ApiHandlers } from '../../lib/constructs/api-handlers.ts';
import { TABLE_READ_ACTIONS, TABLE_WRITE_ACTIONS } from '../../lib/constructs/chronos-function.ts';
import { StatefulStack } from '../../lib/stacks/stateful-stack.ts';
import {
  actionsOn,
  buildChronosAppForProperties,
  grantsOf,
  logicalIdOf,
  SKIP_BUNDLING,
} from './support/chronos-app.ts';

type Resource = {
  Type: string;
  // biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON walked by the assertions
  Properties: Record<string, any>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
};

const ENGINE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem'];

function statefulResources(retainData: boolean): { stack: StatefulStack; resources: Record<string, Resource> } {
  const stack = new StatefulStack(new App(), 'Stateful', { config: { ...DEFAULT_CONFIG, stage: 'test', retainData } });
  return { stack, resources: Template.fromStack(stack).toJSON().Resources };
}

describe('the workflow-runs table', () => {
  it('is keyed by pk and sk (strings), on demand, with TTL on expiresAt, no stream and no index', () => {
    const { stack, resources } = statefulResources(false);
    const table = resources[logicalIdOf(stack.workflowRunsTable)];
    expect(table?.Type).toBe('AWS::DynamoDB::Table');
    expect(table?.Properties.KeySchema).toEqual([
      { AttributeName: WORKFLOW_RUNS_TABLE.partitionKey, KeyType: 'HASH' },
      { AttributeName: WORKFLOW_RUNS_TABLE.sortKey, KeyType: 'RANGE' },
    ]);
    expect(WORKFLOW_RUNS_TABLE).toMatchObject({ partitionKey: 'pk', sortKey: 'sk', ttlAttribute: 'expiresAt' });
    expect(table?.Properties.AttributeDefinitions).toEqual([
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'sk', AttributeType: 'S' },
    ]);
    expect(table?.Properties.BillingMode).toBe('PAY_PER_REQUEST');
    expect(table?.Properties.TimeToLiveSpecification).toEqual({ AttributeName: 'expiresAt', Enabled: true });
    expect(table?.Properties.StreamSpecification).toBeUndefined();
    expect(table?.Properties.GlobalSecondaryIndexes).toBeUndefined();
    expect(table?.Properties.LocalSecondaryIndexes).toBeUndefined();
    expect(logicalIdOf(stack.workflowRunsTable)).toMatch(/^WorkflowRuns/);
  });

  it.each([false, true])(
    'has point-in-time recovery, and the encryption, deletion protection and removal policy of the runs table (retainData %s)',
    (retainData) => {
      const { stack, resources } = statefulResources(retainData);
      const workflowRuns = resources[logicalIdOf(stack.workflowRunsTable)] as Resource;
      const runs = resources[logicalIdOf(stack.runsTable)] as Resource;
      expect(workflowRuns.Properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
      expect(workflowRuns.Properties.SSESpecification).toEqual(runs.Properties.SSESpecification);
      expect(workflowRuns.Properties.DeletionProtectionEnabled).toBe(runs.Properties.DeletionProtectionEnabled);
      expect(workflowRuns.DeletionPolicy).toBe(retainData ? 'Retain' : 'Delete');
      expect(workflowRuns.DeletionPolicy).toBe(runs.DeletionPolicy);
      expect(workflowRuns.UpdateReplacePolicy).toBe(runs.UpdateReplacePolicy);
    },
  );
});

describe('grants on the workflow-runs table in the deployed app', () => {
  let chronos: ChronosApp;
  let template: Template;
  let workflowRunsArn: RegExp;
  let runsArn: RegExp;

  beforeAll(() => {
    chronos = buildChronosAppForProperties({ 'chronos:stage': 'dev' });
    template = Template.fromStack(chronos.stateless);
    workflowRunsArn = new RegExp(`${logicalIdOf(chronos.stateful.workflowRunsTable)}Arn`);
    runsArn = new RegExp(`${logicalIdOf(chronos.stateful.runsTable)}Arn`);
  }, 60_000);

  // The stream-failure handler completes runs again through the completion handler's use case.
  const engine = () => [
    ['executor', chronos.stateless.executor.function] as const,
    ['completion handler', chronos.stateless.completion.function] as const,
    ['stream-failure handler', chronos.stateless.streamFailures.function] as const,
  ];

  it('give the executor, the completion handler and the stream-failure handler exactly GetItem and PutItem, on the table alone, with its name', () => {
    for (const [name, fn] of engine()) {
      const grants = grantsOf(template, logicalIdOf(fn.executionRole));
      expect(actionsOn(grants, workflowRunsArn), name).toEqual(ENGINE_ACTIONS);
      const resources = grants.flatMap((g) => g.resources).filter((r) => workflowRunsArn.test(r));
      for (const resource of resources) expect(resource, name).not.toMatch(/\/index\/|\*/);
      const env = template.toJSON().Resources[logicalIdOf(fn)].Properties.Environment.Variables;
      expect(JSON.stringify(env[ENV.workflowRunsTable]), name).toMatch(
        new RegExp(logicalIdOf(chronos.stateful.workflowRunsTable)),
      );
    }
  });

  it('let the executor send failure notices, with the queue URL: starting a workflow run can end it FAILED', () => {
    const { executor } = chronos.stateless;
    const noticesArn = new RegExp(`${logicalIdOf(chronos.stateful.failureNoticeQueue)}Arn`);
    const grants = grantsOf(template, logicalIdOf(executor.function.executionRole));
    expect(actionsOn(grants, noticesArn)).toEqual(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']);
    const env = template.toJSON().Resources[logicalIdOf(executor.function)].Properties.Environment.Variables;
    expect(JSON.stringify(env[ENV.failureNoticeQueueUrl])).toContain(logicalIdOf(chronos.stateful.failureNoticeQueue));
  });

  it('let the executor and the completion handler batch-read the runs table (a workflow run reads its task runs)', () => {
    for (const [name, fn] of engine()) {
      const grants = grantsOf(template, logicalIdOf(fn.executionRole));
      expect(actionsOn(grants, runsArn), name).toContain('dynamodb:BatchGetItem');
    }
  });

  it('go to no other function: no one else knows the table', () => {
    const engineRoles = new Set(engine().map(([, fn]) => logicalIdOf(fn.executionRole)));
    const routesWithAccess = new Set(
      [...chronos.stateless.apiHandlers.functions.entries()]
        .filter(([handler]) => Boolean(routeAccessOf(handler)?.workflowRuns))
        .map(([, fn]) => logicalIdOf(fn.executionRole)),
    );
    const roles = Object.entries(template.findResources('AWS::IAM::Role')).map(([id]) => id);
    for (const role of roles) {
      if (engineRoles.has(role) || routesWithAccess.has(role)) continue;
      expect(actionsOn(grantsOf(template, role), workflowRunsArn), role).toEqual([]);
    }
  });
});

/** What the route table declares for a handler's route. */
function routeAccessOf(handler: string): Route['access'] | undefined {
  return ROUTES.find((route) => route.handler === handler)?.access;
}

describe('API routes with access.workflowRuns', () => {
  const routes: Route[] = [
    {
      method: 'GET',
      path: '/v1/workflow-runs/{id}',
      handler: 'get-run',
      authorized: true,
      access: { workflowRuns: 'read' },
    },
    {
      method: 'POST',
      path: '/v1/workflow-runs/{id}/cancel',
      handler: 'cancel-run',
      authorized: true,
      access: { workflowRuns: 'readWrite' },
    },
    { method: 'GET', path: '/v1/runs', handler: 'list-runs', authorized: true, access: { runs: 'read' } },
    {
      method: 'POST',
      path: '/v1/workflow-runs/{id}/retry',
      handler: 'retry-run',
      authorized: true,
      access: { workflowRuns: 'readWrite', sendFailureNotices: true },
    },
  ];
  let template: Template;
  let handlers: ApiHandlers;
  let workflowRunsArn: RegExp;
  let notices: sqs.Queue;

  beforeAll(() => {
    const app = new App({ context: SKIP_BUNDLING });
    const stateful = new Stack(app, 'Data');
    const table = (id: string) =>
      new dynamodb.Table(stateful, id, { partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING } });
    const workflowRunsTable = table('WorkflowRunsTable');
    notices = new sqs.Queue(stateful, 'Notices');
    const stack = new Stack(app, 'Api');
    handlers = new ApiHandlers(stack, 'ApiHandlers', {
      routes,
      jobsTable: table('JobsTable'),
      runsTable: table('RunsTable'),
      workflowRunsTable,
      metricsTable: table('MetricsTable'),
      tenantsTable: table('TenantsTable'),
      secretsKey: new kms.Key(stateful, 'Key'),
      dispatchLanes: {
        high: { queue: new sqs.Queue(stateful, 'DispatchHigh'), deadLetterQueue: new sqs.Queue(stateful, 'HighDlq') },
        normal: { queue: new sqs.Queue(stateful, 'Dispatch'), deadLetterQueue: new sqs.Queue(stateful, 'DispatchDlq') },
        low: { queue: new sqs.Queue(stateful, 'DispatchLow'), deadLetterQueue: new sqs.Queue(stateful, 'LowDlq') },
      },
      failureNoticeQueue: notices,
      shared: { logRetention: 7, retainLogs: false },
    });
    template = Template.fromStack(stack);
    workflowRunsArn = new RegExp(`${logicalIdOf(workflowRunsTable)}Arn`);
  }, 60_000);

  const grantsOn = (handler: string) => {
    const fn = handlers.functions.get(handler);
    if (!fn) throw new Error(`no function for ${handler}`);
    const grants = grantsOf(template, logicalIdOf(fn.executionRole));
    const env = template.toJSON().Resources[logicalIdOf(fn)].Properties.Environment?.Variables ?? {};
    return { actions: actionsOn(grants, workflowRunsArn), grants, env };
  };

  it("gives a route with workflowRuns: 'read' only the item reads, on the table alone, and the table's name", () => {
    const { actions, grants, env } = grantsOn('get-run');
    expect(actions).toEqual([...TABLE_READ_ACTIONS].sort());
    for (const action of [...TABLE_WRITE_ACTIONS, 'dynamodb:Scan']) expect(actions).not.toContain(action);
    const resources = grants.flatMap((g) => g.resources).filter((r) => workflowRunsArn.test(r));
    for (const resource of resources) expect(resource).not.toMatch(/\/index\//);
    expect(ENV.workflowRunsTable in env).toBe(true);
  });

  it("gives a route with workflowRuns: 'readWrite' the item reads and writes, and no Scan", () => {
    const { actions } = grantsOn('cancel-run');
    expect(actions).toEqual([...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS].sort());
    expect(actions).not.toContain('dynamodb:Scan');
  });

  it('gives a route that does not declare it nothing on the table, and not its name', () => {
    const { actions, env } = grantsOn('list-runs');
    expect(actions).toEqual([]);
    expect(ENV.workflowRunsTable in env).toBe(false);
  });

  it('lets only a route with sendFailureNotices send to the failure-notice queue, and tells only it the URL', () => {
    const noticesArn = new RegExp(`${logicalIdOf(notices)}Arn`);
    for (const route of routes) {
      const { grants, env } = grantsOn(route.handler);
      const expected = route.access.sendFailureNotices
        ? ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']
        : [];
      expect(actionsOn(grants, noticesArn), route.handler).toEqual(expected);
      expect(ENV.failureNoticeQueueUrl in env, route.handler).toBe(Boolean(route.access.sendFailureNotices));
    }
  });
});
