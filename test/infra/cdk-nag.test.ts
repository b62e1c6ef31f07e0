/**
 * The app as deployed (real esbuild bundles) passes the cdk-nag AwsSolutions and Serverless packs
 * with every finding either fixed or acknowledged with a reason.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '#handlers/api/routes';
import { buildChronosApp } from './support/chronos-app.ts';

interface SuppressedViolation {
  ruleName: string;
  reason: string;
  acknowledgedAt: string;
  violatingConstructs: Array<{ constructPath: string }>;
}
interface ValidationReport {
  pluginReports: Array<{ pluginName: string; violations: unknown[]; suppressedViolations?: SuppressedViolation[] }>;
}

let assembly: CloudAssembly;
let report: ValidationReport;

beforeAll(() => {
  // Synthesis throws if any plugin still reports an unacknowledged error.
  assembly = buildChronosApp().app.synth();
  report = JSON.parse(readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8'));
}, 90_000);

describe('cdk-nag', () => {
  it('runs both packs', () => {
    const names = report.pluginReports.map((r) => r.pluginName);
    expect(names).toEqual(expect.arrayContaining(['AwsSolutions', 'Serverless']));
  });

  it('leaves no unacknowledged finding, warnings included', () => {
    const open = report.pluginReports.flatMap((r) => r.violations.map((v) => ({ plugin: r.pluginName, v })));
    expect(open).toEqual([]);
  });

  it('acknowledges every finding with a written reason on the narrowest construct', () => {
    const suppressed = report.pluginReports.flatMap((r) => r.suppressedViolations ?? []);
    expect(suppressed.length).toBeGreaterThan(0);
    for (const s of suppressed) {
      expect(s.reason.length, s.ruleName).toBeGreaterThan(30);
      // Never acknowledged for a whole stack or app.
      expect(s.acknowledgedAt.split('/').length, `${s.ruleName} at ${s.acknowledgedAt}`).toBeGreaterThan(1);
    }
  });

  it('acknowledges only the known, reasoned rules', () => {
    const rules = new Set(
      report.pluginReports.flatMap((r) => (r.suppressedViolations ?? []).map((s) => s.ruleName.replace(/\[.*$/, ''))),
    );
    expect([...rules].sort()).toEqual(
      [
        'AwsSolutions-APIG4',
        'AwsSolutions-CFR1',
        'AwsSolutions-CFR2',
        'AwsSolutions-CFR4',
        'AwsSolutions-COG4',
        'AwsSolutions-IAM4',
        'AwsSolutions-IAM5',
        'AwsSolutions-L1',
        'AwsSolutions-SMG4',
        'AwsSolutions-SQS3',
        'Serverless-LambdaDLQ',
        'Serverless-LambdaEventSourceMappingDestination',
        'Serverless-LambdaLatestVersion',
        'Serverless-LambdaTracing',
        'Serverless-SQSRedrivePolicy',
      ].sort(),
    );
  });

  it("acknowledges CloudFront's findings on the console's distribution, and old runtimes or no tracing on CDK's deployment handler only", () => {
    const suppressed = report.pluginReports.flatMap((r) => r.suppressedViolations ?? []);
    const where = (rule: RegExp) =>
      suppressed.filter((s) => rule.test(s.ruleName)).flatMap((s) => s.violatingConstructs.map((c) => c.constructPath));
    expect(where(/^AwsSolutions-CFR/).length).toBe(3);
    for (const path of where(/^AwsSolutions-CFR/)) expect(path).toMatch(/\/Console\/Distribution\//);
    const cdkHandlerOnly = /^(AwsSolutions-L1|Serverless-LambdaLatestVersion|Serverless-LambdaTracing)$/;
    expect(where(cdkHandlerOnly).length).toBe(3);
    for (const path of where(cdkHandlerOnly)) expect(path).toMatch(/\/Custom::CDKBucketDeployment[^/]*\//);
  });

  it("acknowledges no rotation only on the API's edge secret, which CloudFormation resolves at deploy", () => {
    const smg4 = report.pluginReports
      .flatMap((r) => r.suppressedViolations ?? [])
      .filter((s) => s.ruleName === 'AwsSolutions-SMG4');
    expect(smg4.flatMap((s) => s.violatingConstructs.map((c) => c.constructPath))).toEqual([
      expect.stringMatching(/\/ApiEdgeSecret\/Value\/Resource$/),
    ]);
    expect(smg4[0]?.reason).toMatch(/grants no access/);
  });

  it('acknowledges the missing authorizer only on the public routes, the callback ones with their token as the reason', () => {
    const apig4 = report.pluginReports
      .flatMap((r) => r.suppressedViolations ?? [])
      .filter((s) => s.ruleName === 'AwsSolutions-APIG4')
      .flatMap((s) => s.violatingConstructs.map((c) => ({ path: c.constructPath, reason: s.reason })))
      .filter(({ path }) => !/\/OPTIONS\//.test(path));
    const routeOf = (path: string) => /\/Default(\/.*)\/(GET|POST|PATCH|DELETE)\/Resource$/.exec(path)?.slice(1);
    const routes = apig4.map(({ path }) => routeOf(path)?.reverse().join(' '));
    const publicRoutes = ROUTES.filter((r) => !r.authorized).map((r) => `${r.method} ${r.path}`);
    expect(routes.sort()).toEqual(publicRoutes.sort());
    const callbacks = apig4.filter(({ path }) => path.includes('/callbacks/'));
    expect(callbacks).toHaveLength(3);
    for (const { reason } of callbacks) expect(reason).toMatch(/callback token is the credential \(HMAC-SHA256/);
  });

  it('states the stream permission reason on the completion role', () => {
    const suppressed = report.pluginReports.flatMap((r) => r.suppressedViolations ?? []);
    const completion = suppressed.find(
      (s) => s.ruleName === 'AwsSolutions-IAM5[Resource::*]' && s.acknowledgedAt.includes('Completion'),
    );
    expect(completion?.reason).toMatch(/ListStreams/);
  });

  it('states the GetMetricData reason on the system view role, and on no other', () => {
    const suppressed = report.pluginReports.flatMap((r) => r.suppressedViolations ?? []);
    const metricReaders = suppressed.filter(
      (s) => s.ruleName === 'AwsSolutions-IAM5[Resource::*]' && s.reason.includes('cloudwatch:GetMetricData'),
    );
    expect(metricReaders.map((s) => s.acknowledgedAt)).toEqual([expect.stringContaining('MonitoringSystem')]);
  });

  it('catches a non-compliant resource (the packs are really on)', () => {
    const app = new App();
    const stack = new Stack(app, 'Bad');
    new sqs.Queue(stack, 'PlainQueue', { encryption: sqs.QueueEncryption.UNENCRYPTED });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));

    expect(() => app.synth()).toThrow(/AwsSolutions-SQS4/);
  });
});

describe('bundled handlers', () => {
  it('are ESM with the require shim and a source map, one per function', () => {
    // Folders only: CDK's own assets include zip files (the AWS CLI layer of the console's deployment).
    const assets = readdirSync(assembly.directory).filter(
      (name) => name.startsWith('asset.') && statSync(join(assembly.directory, name)).isDirectory(),
    );
    const bundles = assets.filter((dir) => readdirSync(join(assembly.directory, dir)).includes('index.mjs'));
    // One bundle per API route, plus authorizer, scanner, executor, completion, dead-letter and stream-failure handlers and notifier.
    expect(bundles).toHaveLength(ROUTES.length + 7);
    for (const dir of bundles) {
      const files = readdirSync(join(assembly.directory, dir));
      expect(files).toContain('index.mjs.map');
      const code = readFileSync(join(assembly.directory, dir, 'index.mjs'), 'utf8');
      expect(code.startsWith('import { createRequire')).toBe(true);
      expect(code).toMatch(/export\s*\{[^}]*handler/);
    }
  });
});
