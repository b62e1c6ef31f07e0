/**
 * `cdk synth` with the pinned CLI, once for the whole file: it works on a machine with no AWS
 * credentials and no Docker (handlers bundle with the local esbuild, the console with vite), and
 * the app it writes passes the cdk-nag AwsSolutions and Serverless packs with every finding either
 * fixed or acknowledged with a reason. One synthesis serves both: the CLI runs the same app
 * (bin/chronos.ts → lib/app.ts, cdk.json's context) that an in-process synthesis would build again,
 * bundles and all, for another minute of CPU.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, Stack, Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '#handlers/api/routes';
import { isCdkHandler } from './support/chronos-app.ts';

interface SuppressedViolation {
  ruleName: string;
  reason: string;
  acknowledgedAt: string;
  violatingConstructs: Array<{ constructPath: string }>;
}
interface ValidationReport {
  pluginReports: Array<{ pluginName: string; violations: unknown[]; suppressedViolations?: SuppressedViolation[] }>;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const outdir = mkdtempSync(join(tmpdir(), 'chronos-synth-'));
let result: ReturnType<typeof spawnSync>;

/** The caller's environment without anything that could reach or name an AWS account. */
function credentialFreeEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_') && !name.startsWith('CDK_')),
  );
  return {
    ...env,
    // No config or credential files either; Node 24 from the repository comes first.
    AWS_CONFIG_FILE: join(outdir, 'no-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(outdir, 'no-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
    PATH: [join(ROOT, 'node_modules', '.bin'), process.env.PATH].join(delimiter),
  };
}

let report: ValidationReport;

beforeAll(() => {
  result = spawnSync(join(ROOT, 'node_modules', '.bin', 'cdk'), ['synth', '--quiet', '--output', outdir], {
    cwd: ROOT,
    env: credentialFreeEnv(),
    encoding: 'utf8',
    timeout: 150_000,
  });
  // Written by the validation plugins, also when an unacknowledged finding fails the synthesis.
  const reportFile = join(outdir, 'validation-report.json');
  if (existsSync(reportFile)) report = JSON.parse(readFileSync(reportFile, 'utf8'));
}, 160_000);

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('npx cdk synth', () => {
  it('exits 0 without credentials or Docker', () => {
    expect(result.error).toBeUndefined();
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(String(result.stderr)).not.toMatch(/docker/i);
  });

  it('writes both stacks of the default stage', () => {
    for (const stack of ['Chronos-dev-Stateful', 'Chronos-dev-Stateless']) {
      expect(existsSync(join(outdir, `${stack}.template.json`)), stack).toBe(true);
    }
  });

  it('names no account (none is reachable) and deploys Node.js 24 functions', () => {
    const manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8'));
    const stateless = manifest.artifacts['Chronos-dev-Stateless'];
    // The CLI still fills in a default region; the account stays unresolved.
    expect(stateless.environment).toMatch(/^aws:\/\/unknown-account\//);
    const template = JSON.parse(readFileSync(join(outdir, 'Chronos-dev-Stateless.template.json'), 'utf8'));
    // CDK's own custom-resource handlers (the console's deployment) run CDK's runtimes.
    const runtimes = Object.entries(
      template.Resources as Record<string, { Type: string; Properties: { Runtime?: string } }>,
    )
      .filter(([id, r]) => r.Type === 'AWS::Lambda::Function' && !isCdkHandler(id))
      .map(([, r]) => r.Properties.Runtime);
    expect(runtimes.length).toBe(ROUTES.length + 7); // + authorizer, scanner, executor, completion, dead letters, stream failures, notifier
    expect(new Set(runtimes)).toEqual(new Set(['nodejs24.x']));
  });

  it('builds the console (vite build) into an asset of its own', () => {
    const built = readdirSync(outdir).filter(
      (name) => name.startsWith('asset.') && existsSync(join(outdir, name, 'index.html')),
    );
    expect(built).toHaveLength(1);
    const html = readFileSync(join(outdir, built[0] as string, 'index.html'), 'utf8');
    // The built shell loads bundled scripts, not the sources.
    expect(html).toMatch(/<script[^>]+src="\/assets\/[^"]+\.js"/);
  });
});

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
    const assets = readdirSync(outdir).filter(
      (name) => name.startsWith('asset.') && statSync(join(outdir, name)).isDirectory(),
    );
    const bundles = assets.filter((dir) => readdirSync(join(outdir, dir)).includes('index.mjs'));
    // One bundle per API route, plus authorizer, scanner, executor, completion, dead-letter and stream-failure handlers and notifier.
    expect(bundles).toHaveLength(ROUTES.length + 7);
    for (const dir of bundles) {
      const files = readdirSync(join(outdir, dir));
      expect(files).toContain('index.mjs.map');
      const code = readFileSync(join(outdir, dir, 'index.mjs'), 'utf8');
      expect(code.startsWith('import { createRequire')).toBe(true);
      expect(code).toMatch(/export\s*\{[^}]*handler/);
    }
  });
});
