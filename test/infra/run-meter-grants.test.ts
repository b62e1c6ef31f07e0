/**
 * Grants that local IAM enforcement revealed missing: the routes that create runs outside the
 * schedule take from the tenant's trigger bucket (UpdateItem on the tenants table) after reading
 * its quotas (GetItem), and need the table's name. Without them each answered 500 on AWS.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '#adapters/environment';
import type { ChronosApp } from '../../lib/app.ts';
import { actionsOn, buildChronosAppForProperties, grantsOf, logicalIdOf } from './support/chronos-app.ts';

let chronos: ChronosApp;
let template: Template;

beforeAll(() => {
  chronos = buildChronosAppForProperties({ 'chronos:stage': 'dev' });
  template = Template.fromStack(chronos.stateless);
}, 60_000);

describe('routes that meter runs created outside the schedule', () => {
  it.each(['trigger-job', 'update-job', 'resume-job', 'retry-run'])(
    '%s may read the tenant and update its trigger bucket in the tenants table, and knows the table',
    (handler) => {
      const fn = chronos.stateless.apiHandlers.functions.get(handler);
      if (!fn) throw new Error(`no function for ${handler}`);
      const tenantsArn = new RegExp(`${logicalIdOf(chronos.stateful.tenantsTable)}Arn`);
      const actions = actionsOn(grantsOf(template, logicalIdOf(fn.executionRole)), tenantsArn);
      expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:UpdateItem']));
      expect(actions).not.toContain('dynamodb:Scan');
      const env = template.toJSON().Resources[logicalIdOf(fn)].Properties.Environment.Variables;
      expect(env[ENV.tenantsTable]).toBeDefined();
    },
  );
});
