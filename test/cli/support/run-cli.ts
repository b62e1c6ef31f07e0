/**
 * The CLI as a user runs it: `cli/bin/chronos.mjs` in its own process, with a home and config
 * folder of its own (so no test reads or writes the real ~/.config) and the environment given.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = new URL('../../../cli/bin/chronos.mjs', import.meta.url).pathname;

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A fresh HOME / XDG_CONFIG_HOME for one test's profile. */
export function freshHome(): { HOME: string; XDG_CONFIG_HOME: string } {
  const home = mkdtempSync(join(tmpdir(), 'chronos-cli-'));
  return { HOME: home, XDG_CONFIG_HOME: join(home, 'config') };
}

/**
 * Runs `chronos <args>`; resolves when it exits. `env` is added to a minimal environment; `stdin`,
 * when given, is what the CLI reads on its standard input (else it has none).
 */
export function runCli(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
  stdin?: string,
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH, TZ: 'UTC', ...freshHome(), ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // No stdin given: an empty one (end of input at once), as /dev/null would be.
    child.stdin.end(stdin ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
