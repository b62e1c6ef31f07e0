/**
 * The browser the console tests drive: CHROMIUM_PATH, or Debian's package. On a fresh Debian
 * machine without it, `npm test` installs it with apt (as it does Java for DynamoDB Local) instead
 * of failing every browser test; a browser download cannot work here.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const DEBIAN_CHROMIUM = '/usr/bin/chromium';

export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH ?? DEBIAN_CHROMIUM;
}

export function ensureChromium(log: (line: string) => void = console.log): void {
  if (existsSync(chromiumPath())) return;
  if (process.env.CHROMIUM_PATH !== undefined) {
    throw new Error(`CHROMIUM_PATH is ${process.env.CHROMIUM_PATH}, which does not exist`);
  }
  if (process.getuid?.() !== 0) {
    throw new Error('The console tests need Chromium: run `sudo apt-get install -y chromium` (or set CHROMIUM_PATH)');
  }
  log("chromium not found: installing Debian's chromium with apt-get (one time, for the console tests)...");
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: 'inherit', env });
  if (!existsSync(DEBIAN_CHROMIUM)) throw new Error('chromium is still missing after apt-get install chromium');
}
