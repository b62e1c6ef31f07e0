/**
 * What a newcomer sees from `npm start`: a short banner whose every line works (the API URL, the
 * token, where the data lives, how to stop), no warning they cannot act on, one clear line when
 * the port or host cannot be used, and a `--help` that names everything the runtime reads.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENV } from '#adapters/environment';
import { freePort } from '#local/emulators/free-port';
import { descendantsOf, killAll, spawnNpmStart } from '../support/npm-start.ts';

const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));
/** Output of Node a newcomer cannot act on (a dependency's deprecation, an experimental feature). */
const NODE_WARNING = /DeprecationWarning|ExperimentalWarning|\(node:\d+\)|--trace-deprecation/;
/** npm's own lines (its banner, its configuration warnings): not the runtime's. */
const isNpmLine = (line: string) => /^(npm (warn|error|notice)|> )/.test(line) || line.trim() === '';

/** The runtime's lines, npm's own left out. */
const runtimeLines = (output: string) => output.split('\n').filter((line) => !isNpmLine(line));

async function exitWithin(npm: ReturnType<typeof spawnNpmStart>, ms: number) {
  return Promise.race([
    npm.exited,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`npm start still running after ${ms} ms:\n${npm.output()}`)), ms),
    ),
  ]);
}

describe('npm start', () => {
  it('prints a short banner whose lines work, and no Node warning', { timeout: 90_000 }, async () => {
    const port = await freePort();
    const npm = spawnNpmStart([], { PORT: String(port), HOST: '127.0.0.1' });
    let tree: number[] = [];
    try {
      await npm.waitFor(/Chronos is running[\s\S]*Ctrl-C/, 75_000);
      tree = descendantsOf(npm.pid);
      const banner = npm.output().slice(npm.output().indexOf('Chronos is running.'));

      // HOST and PORT are honoured, and the printed URL answers.
      const api = banner.match(/^ {2}API\s+(\S+)$/m)?.[1];
      expect(api).toBe(`http://127.0.0.1:${port}`);
      expect((await fetch(`${api}/v1/health`)).status).toBe(200);
      // The printed console URL serves the app at the same origin (built by npm start when stale).
      const consoleUrl = banner.match(/^ {2}Console\s+(\S+)/m)?.[1];
      expect(consoleUrl).toBe(`${api}/`);
      const consolePage = await fetch(`${consoleUrl}jobs`);
      expect(consolePage.status).toBe(200);
      expect(await consolePage.text()).toContain('<div id="root">');
      // The printed token is accepted.
      const token = banner.match(/^ {2}Token\s+(\S+)/m)?.[1] as string;
      expect(token).toBeTruthy();
      const jobs = await fetch(`${api}/v1/jobs`, { headers: { authorization: `Bearer ${token}` } });
      expect(jobs.status).toBe(200);
      // The printed operator token has the admin scope (the system view); the tenant's token has not.
      const operator = banner.match(/^ {2}Operator\s+(\S+)\s+\(admin scope: /m)?.[1] as string;
      expect(operator).toMatch(/^chronos_[A-Za-z0-9_-]{43}$/);
      const system = await fetch(`${api}/v1/monitoring/system`, { headers: { authorization: `Bearer ${operator}` } });
      expect(system.status).toBe(200);
      expect(await system.json()).toMatchObject({ dispatchQueue: { depth: expect.any(Number) } });
      const asTenant = await fetch(`${api}/v1/monitoring/system`, { headers: { authorization: `Bearer ${token}` } });
      expect(asTenant.status).toBe(403);
      // The first-job example uses that URL and token.
      expect(banner).toContain(`curl -s -X POST ${api}/v1/jobs`);
      expect(banner).toContain(`Authorization: Bearer ${token}`);
      // Where the data lives, and how to keep it; how to stop; where the options are.
      expect(banner).toMatch(/^ {2}Data\s+in memory: .*npm start -- --data /m);
      expect(banner).toMatch(/^Stop with Ctrl-C\..*npm start -- --help$/m);
      // One screen: the banner up to its last line.
      const lines = banner.slice(0, banner.indexOf('npm start -- --help')).split('\n');
      expect(lines.length).toBeLessThanOrEqual(24);

      expect(npm.output()).not.toMatch(NODE_WARNING);
    } finally {
      killAll([npm.pid, ...tree]);
    }
  });

  describe('cannot listen: one line saying what to change, no stack trace, a non-zero exit', () => {
    let busy: Server | undefined;

    it('a port in use names the port and how to pick another', { timeout: 60_000 }, async () => {
      const port = await freePort();
      busy = createServer();
      await new Promise<void>((resolve) => busy?.listen(port, '127.0.0.1', resolve));
      try {
        const npm = spawnNpmStart([], { PORT: String(port), HOST: '127.0.0.1' });
        const { code } = await exitWithin(npm, 45_000);
        expect(code).not.toBe(0);
        expect(runtimeLines(npm.output())).toEqual([
          `Port ${port} is already in use on 127.0.0.1. Stop what is using it, or pick another port: PORT=${port + 1} npm start`,
        ]);
      } finally {
        await new Promise((resolve) => busy?.close(resolve));
      }
    });

    it('a HOST that is not an address of this machine names it and what to use instead', {
      timeout: 60_000,
    }, async () => {
      // 203.0.113.0/24 is TEST-NET-3: documentation only, never an address of this machine.
      const npm = spawnNpmStart([], { PORT: String(await freePort()), HOST: '203.0.113.7' });
      const { code } = await exitWithin(npm, 45_000);
      expect(code).not.toBe(0);
      expect(runtimeLines(npm.output())).toEqual([
        'HOST=203.0.113.7 is not an address of this machine, so the API cannot listen on it. Pick one of its own: HOST=127.0.0.1 npm start',
      ]);
    });
  });

  it('--help lists every option and environment variable the local runtime reads, and exits 0', {
    timeout: 60_000,
  }, async () => {
    const npm = spawnNpmStart(['--help'], { PORT: String(await freePort()) });
    let exit: Awaited<typeof npm.exited> | undefined;
    try {
      exit = await exitWithin(npm, 45_000);
    } finally {
      if (!exit) killAll([npm.pid, ...descendantsOf(npm.pid)]);
    }
    expect(exit.code).toBe(0);
    const help = npm.output();
    for (const option of ['--data <dir>', '--help']) expect(help).toContain(option);
    const read = variablesReadByTheLocalRuntime();
    // The grep below must find what it is meant to (else this test would pass on an empty list).
    expect(read).toEqual(expect.arrayContaining(['PORT', 'HOST', 'CHRONOS_DATA_DIR', 'SECRETS_LOCAL_KEY']));
    for (const name of read)
      expect(help, `${name} is read but not in --help`).toMatch(new RegExp(`^ {2}${name}\\b`, 'm'));
  });
});

/**
 * The environment variables bin/local.ts and functions/local/ read, found in their source:
 * `process.env.NAME`, `process.env[ENV.key]` and `env.NAME` (the options parser's parameter).
 * Those the runtime sets itself before reading them (the functions' environment) are not options.
 */
function variablesReadByTheLocalRuntime(): string[] {
  const setByTheRuntime = new Set(['AWS_REGION']);
  const files = [
    'bin/local.ts',
    ...readdirSync(`${REPOSITORY}/functions/local`, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => `functions/local/${file}`),
  ];
  const names = new Set<string>();
  for (const file of files) {
    const source = readFileSync(`${REPOSITORY}/${file}`, 'utf8');
    for (const [, name] of source.matchAll(/\b(?:process\.)?env\.([A-Z][A-Z0-9_]+)\b/g)) names.add(name as string);
    for (const [, key] of source.matchAll(/process\.env\[ENV\.(\w+)\]/g)) {
      names.add(ENV[key as keyof typeof ENV]);
    }
  }
  return [...names].filter((name) => !setByTheRuntime.has(name)).sort();
}
