import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
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
