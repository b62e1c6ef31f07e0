/**
 * `cdk synth` with the pinned CLI works on a machine with no AWS credentials and no Docker:
 * handlers bundle with the local esbuild and cdk-nag passes.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '#handlers/api/routes';
import { isCdkHandler } from './support/chronos-app.ts';

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

beforeAll(() => {
  result = spawnSync(join(ROOT, 'node_modules', '.bin', 'cdk'), ['synth', '--quiet', '--output', outdir], {
    cwd: ROOT,
    env: credentialFreeEnv(),
    encoding: 'utf8',
    timeout: 150_000,
  });
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

  it('reports cdk-nag clean', () => {
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8'));
    const open = report.pluginReports.flatMap((r: { violations: unknown[] }) => r.violations);
    expect(open).toEqual([]);
  });
});
