import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Template } from 'aws-cdk-lib/assertions';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ROUTES } from '#handlers/api/routes';
import type { ChronosApp } from '../../lib/app.ts';
import { buildChronosAppForProperties, logicalIdOf } from './support/chronos-app.ts';

let chronos: ChronosApp;
let template: Template;

beforeAll(() => {
  chronos = buildChronosAppForProperties({ 'chronos:stage': 'dev' });
  template = Template.fromStack(chronos.stateless);
}, 60_000);

/** Every statement of the role's policies that names `action`. */
function statementsWith(handler: string, action: string): Array<Record<string, unknown>> {
  const role = chronos.stateless.apiHandlers.functions.get(handler)?.executionRole;
  if (!role) throw new Error(`no function for ${handler}`);
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: logicalIdOf(role) }]))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Array<Record<string, unknown>>)
    .filter((statement) => ([] as unknown[]).concat(statement.Action).includes(action));
}

describe('the admin all-tenant stats (GET /v1/monitoring/stats)', () => {
  it('may Scan and Query the tenants table for its keys and admitted-job counts only, with Select SPECIFIC_ATTRIBUTES required', () => {
    const tenantsArn = new RegExp(`${logicalIdOf(chronos.stateful.tenantsTable)}Arn`);
    const scans = statementsWith('monitoring-stats', 'dynamodb:Scan');
    expect(scans).toHaveLength(1);
    const [scan] = scans as [Record<string, unknown>];
    expect(statementsWith('monitoring-stats', 'dynamodb:Query').filter((s) => s === scan)).toHaveLength(1);
    expect(scan.Effect).toBe('Allow');
    expect(scan.Action).toEqual(['dynamodb:Query', 'dynamodb:Scan']);
    expect(JSON.stringify(scan.Resource)).toMatch(tenantsArn);
    expect(scan.Condition).toEqual({
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['pk', 'sk', 'admittedJobs'] },
      StringEquals: { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' },
    });
  });

  it('reads nothing else of the tenants table, and no other function may Scan anything', () => {
    const tenantsArn = new RegExp(`${logicalIdOf(chronos.stateful.tenantsTable)}Arn`);
    const route = ROUTES.find((r) => r.handler === 'monitoring-stats');
    expect(route?.access.tenants).toBeUndefined();
    for (const action of ['dynamodb:GetItem', 'dynamodb:BatchGetItem']) {
      const onTenants = statementsWith('monitoring-stats', action).filter((s) =>
        tenantsArn.test(JSON.stringify(s.Resource)),
      );
      expect(onTenants).toEqual([]);
    }
    const scanners = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
      (policy.Properties.PolicyDocument.Statement as Array<{ Action: unknown }>).some((s) =>
        ([] as unknown[]).concat(s.Action).some((a) => a === 'dynamodb:Scan' || a === 'dynamodb:*'),
      ),
    );
    const stats = chronos.stateless.apiHandlers.functions.get('monitoring-stats');
    expect(scanners.map((policy) => policy.Properties.Roles)).toEqual([
      [{ Ref: logicalIdOf(stats?.executionRole as never) }],
    ]);
  });
});

describe('the stats function’s environment', () => {
  /** A DynamoDB endpoint that answers every request with an empty result: no items, no pages. */
  async function emptyDynamoDb(): Promise<{ url: string; close: () => Promise<void> }> {
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
        response.end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
  }

  it('holds every variable its reads need: the stats answer, for a tenant and for all, with only what it is given', async () => {
    const fn = chronos.stateless.apiHandlers.functions.get('monitoring-stats');
    const [, resource] = Object.entries(template.findResources('AWS::Lambda::Function')).find(
      ([id]) => id === logicalIdOf(fn as never),
    ) as [string, { Properties: { Environment: { Variables: Record<string, unknown> } } }];
    const given = Object.keys(resource.Properties.Environment.Variables);
    const dynamodb = await emptyDynamoDb();
    const saved = { ...process.env };
    try {
      // Exactly the deployed function's variable names (values are references there), and the SDK's own.
      for (const name of Object.keys(process.env)) if (/TABLE|QUEUE|CHRONOS|QUOTA/.test(name)) delete process.env[name];
      for (const name of given) process.env[name] = `deployed-${name.toLowerCase()}`;
      Object.assign(process.env, {
        AWS_ENDPOINT_URL_DYNAMODB: dynamodb.url,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
      });
      vi.resetModules();
      const { getMonitoringStats } = await import('#handlers/api/monitoring-stats');
      const ask = (authorizer: Record<string, string>) =>
        getMonitoringStats({
          queryStringParameters: { window: '1h' },
          requestContext: { authorizer },
        } as unknown as APIGatewayProxyEvent);

      for (const answer of [await ask({ tenantId: 't1' }), await ask({ scope: 'admin' })]) {
        expect(answer.statusCode).toBe(200);
        expect(JSON.parse(answer.body).jobs.byStatus.ACTIVE).toBe(0);
      }
    } finally {
      process.env = saved;
      await dynamodb.close();
    }
  });
});
