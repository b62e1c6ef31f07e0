/**
 * The deploy workflow's structure (.github/workflows/deploy.yml): the suite runs first, the stage
 * is synthesized once and diffed, and the deploy ships that very cloud assembly, from the stage's
 * GitHub environment (prod: required reviewers, the approval step).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../lib/config.ts';
import { CDK_JSON_CONTEXT } from './support/chronos-app.ts';

type Step = {
  uses?: string;
  run?: string;
  name?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
};
type Job = {
  needs?: string | string[];
  environment?: string;
  permissions?: Record<string, string>;
  steps: Step[];
};
const workflow = parse(readFileSync(new URL('../../.github/workflows/deploy.yml', import.meta.url), 'utf8')) as {
  on: { workflow_dispatch: { inputs: { stage: { options: string[] } } } };
  permissions: unknown;
  jobs: Record<string, Job>;
};
const jobs = workflow.jobs;
const runs = (job: Job | undefined) => (job?.steps ?? []).map((step) => step.run ?? '').join('\n');
const needs = (job: Job | undefined) => ([] as string[]).concat(job?.needs ?? []);
const job = (name: string): Job => {
  const found = jobs[name];
  if (!found) throw new Error(`no job ${name}`);
  return found;
};

const CONFIGURE_CREDENTIALS = 'aws-actions/configure-aws-credentials@';
const awsRegionOf = (definition: Job) =>
  definition.steps.find((step) => step.uses?.startsWith(CONFIGURE_CREDENTIALS))?.with?.['aws-region'];
const synthStep = (): Step => {
  const found = job('plan').steps.find((step) => step.run?.includes('cdk synth'));
  if (!found) throw new Error('no synth step');
  return found;
};

const scratch = mkdtempSync(join(tmpdir(), 'chronos-deploy-workflow-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let runs_ = 0;

/**
 * Runs a step's script with bash as the runner would, in a fresh folder: `npx` is a stub that
 * records its arguments, and `manifest` (when given) is written as cdk.out/manifest.json.
 */
function runStep(step: Step, env: Record<string, string>, manifest?: unknown) {
  const dir = join(scratch, String(runs_++));
  mkdirSync(join(dir, 'bin'), { recursive: true });
  const calls = join(dir, 'npx-calls');
  writeFileSync(join(dir, 'bin', 'npx'), `#!/bin/sh\necho "$*" >> '${calls}'\n`);
  chmodSync(join(dir, 'bin', 'npx'), 0o755);
  writeFileSync(calls, '');
  if (manifest !== undefined) {
    mkdirSync(join(dir, 'cdk.out'));
    writeFileSync(join(dir, 'cdk.out', 'manifest.json'), JSON.stringify(manifest));
  }
  const result = spawnSync('bash', ['-e', '-c', step.run ?? ''], {
    cwd: dir,
    env: { PATH: [join(dir, 'bin'), process.env.PATH].join(delimiter), ...env },
    encoding: 'utf8',
  });
  const npxCalls = readFileSync(calls, 'utf8').split('\n').filter(Boolean);
  return { status: result.status, output: `${result.stdout}${result.stderr}`, npxCalls };
}

describe('deploy workflow', () => {
  it('offers every stage of cdk.json, and only those', () => {
    const stages = Object.keys(CDK_JSON_CONTEXT['chronos:stages'] as object);
    expect([...workflow.on.workflow_dispatch.inputs.stage.options].sort()).toEqual(stages.sort());
  });

  it('runs the whole test suite before anything is synthesized or deployed', () => {
    expect(runs(job('test'))).toMatch(/^npm test$/m);
    expect(needs(job('plan'))).toContain('test');
    expect(needs(job('deploy'))).toContain('plan');
  });

  it('synthesizes the stage once, into cdk.out, shows cdk diff of that assembly and keeps it as an artifact', () => {
    const plan = job('plan');
    expect(runs(plan)).toMatch(/npx cdk synth .*--output cdk\.out/);
    expect(runs(plan)).toMatch(/chronos:stage=\$STAGE/);
    expect(runs(plan)).toMatch(/npx cdk diff --app cdk\.out --all/);
    const upload = plan.steps.find((step) => step.uses?.startsWith('actions/upload-artifact@'));
    expect(upload?.with?.path).toBe('cdk.out');
    // The diff is on the run's page before anyone approves the deploy.
    expect(runs(plan)).toContain('GITHUB_STEP_SUMMARY');
    // Planning needs no approval: its environment is not the stage's.
    expect(plan.environment).toBe('${{ inputs.stage }}-plan');
  });

  it('deploys exactly the assembly the plan built, never a fresh synth', () => {
    const deploy = job('deploy');
    const download = deploy.steps.find((step) => step.uses?.startsWith('actions/download-artifact@'));
    const upload = job('plan').steps.find((step) => step.uses?.startsWith('actions/upload-artifact@'));
    expect(download?.with?.name).toBe(upload?.with?.name);
    expect(download?.with?.path).toBe('cdk.out');
    expect(runs(deploy)).toMatch(/npx cdk deploy --app cdk\.out --all/);
    expect(runs(deploy)).not.toMatch(/cdk synth/);
    expect(runs(deploy)).not.toMatch(/cdk deploy(?! --app cdk\.out)/);
  });

  it("deploys from the stage's GitHub environment (prod's required reviewers are the approval)", () => {
    expect(job('deploy').environment).toBe('${{ inputs.stage }}');
  });

  it('asks for nothing by default; only the jobs that assume an AWS role may request an OIDC token', () => {
    expect(workflow.permissions).toEqual({});
    for (const [name, definition] of Object.entries(jobs)) {
      const assumesRole = definition.steps.some((step) =>
        step.uses?.startsWith('aws-actions/configure-aws-credentials@'),
      );
      expect(definition.permissions?.['id-token'], name).toBe(assumesRole ? 'write' : undefined);
    }
    expect(runs(job('test'))).not.toMatch(/aws|cdk deploy/i);
  });

  it("synthesizes for the region the deploy job deploys to (its AWS_REGION), not the CLI's us-east-1 default", () => {
    const deployRegion = awsRegionOf(job('deploy'));
    expect(deployRegion).toBe('${{ vars.AWS_REGION }}');
    // The synth runs before the plan job has credentials: AWS_REGION is all the CLI has to go on.
    expect(synthStep().env?.AWS_REGION).toBe(deployRegion);
    const synthAt = job('plan').steps.indexOf(synthStep());
    const credentialsAt = job('plan').steps.findIndex((step) => step.uses?.startsWith(CONFIGURE_CREDENTIALS));
    expect(synthAt).toBeLessThan(credentialsAt);
  });

  it('refuses to synthesize without a region rather than let the CLI pick one', () => {
    const withRegion = runStep(synthStep(), { STAGE: 'prod', AWS_REGION: 'eu-central-1' });
    expect(withRegion.status, withRegion.output).toBe(0);
    expect(withRegion.npxCalls).toEqual(['cdk synth --quiet --output cdk.out -c chronos:stage=prod']);
    const without = runStep(synthStep(), { STAGE: 'prod', AWS_REGION: '' });
    expect(without.status).not.toBe(0);
    expect(without.output).toMatch(/::error::.*AWS_REGION/);
    expect(without.npxCalls).toEqual([]);
  });

  it('deploys an assembly only to the region it was synthesized for (plan and deploy environments may differ)', () => {
    const deploy = job('deploy');
    const check = deploy.steps.find((step) => step.run?.includes('cdk.out/manifest.json'));
    if (!check) throw new Error('no region check in the deploy job');
    expect(check.env?.AWS_REGION).toBe(awsRegionOf(deploy));
    const deployAt = deploy.steps.findIndex((step) => step.run?.includes('cdk deploy'));
    expect(deploy.steps.indexOf(check)).toBeLessThan(deployAt);
    const assembly = (...regions: string[]) => ({
      artifacts: Object.fromEntries([
        ['Tree', { type: 'cdk:tree' }],
        ...regions.map((region, i) => [
          `Chronos-prod-${i}`,
          { type: 'aws:cloudformation:stack', environment: `aws://unknown-account/${region}` },
        ]),
      ]),
    });
    expect(runStep(check, { AWS_REGION: 'eu-central-1' }, assembly('eu-central-1', 'eu-central-1')).status).toBe(0);
    const wrong = runStep(check, { AWS_REGION: 'eu-central-1' }, assembly('eu-central-1', 'us-east-1'));
    expect(wrong.status).not.toBe(0);
    expect(wrong.output).toContain('::error::Chronos-prod-1 was synthesized for aws://unknown-account/us-east-1');
    expect(runStep(check, { AWS_REGION: 'eu-central-1' }, assembly('unknown-region')).status).not.toBe(0);
    expect(runStep(check, { AWS_REGION: 'eu-central-1' }, assembly()).status).not.toBe(0);
  });

  it('pins every action by commit SHA', () => {
    for (const [name, definition] of Object.entries(jobs)) {
      for (const step of definition.steps) if (step.uses) expect(step.uses, name).toMatch(/@[0-9a-f]{40}$/);
    }
  });

  it('passes only context keys the stage configuration accepts (alarm address or topic, operator token hash)', () => {
    const synth = runs(job('plan'));
    const keys = [...synth.matchAll(/chronos:([A-Za-z0-9]+)=/g)].map((m) => m[1] as string);
    expect(keys.sort()).toEqual(['adminTokenSha256', 'alarmEmail', 'alarmTopicArn', 'stage']);
    const values: Record<string, string> = {
      alarmEmail: 'ops@example.com',
      alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:on-call',
      adminTokenSha256: 'a'.repeat(64),
      stage: 'prod',
    };
    const context: Record<string, unknown> = { ...CDK_JSON_CONTEXT };
    for (const key of keys) context[`chronos:${key}`] = values[key];
    const config = loadConfig((key) => context[key]);
    expect(config).toMatchObject({
      stage: 'prod',
      alarmEmail: 'ops@example.com',
      alarmTopicArn: values.alarmTopicArn,
      adminTokenSha256: values.adminTokenSha256,
    });
  });
});
