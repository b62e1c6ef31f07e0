/**
 * The console's build for the local runtime: `npm start` and the browser tests serve console/dist,
 * built again only when its sources (or the typed client it bundles) changed since the last build.
 * The hash of those sources is kept beside the build, so a fresh clone builds once and a second
 * start does not wait for Vite.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildConsole } from '../../lib/console/vite-build.ts';
import { filesUnder } from './files-under.ts';

const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));
export const CONSOLE_ROOT = join(REPOSITORY, 'console');
export const CONSOLE_DIST = join(CONSOLE_ROOT, 'dist');
const HASH_FILE = join(CONSOLE_DIST, '.source-hash');

/** What the bundle is made of: the console's sources and config, and the client it imports. */
const SOURCES = [
  join(CONSOLE_ROOT, 'src'),
  join(CONSOLE_ROOT, 'index.html'),
  join(CONSOLE_ROOT, 'vite.config.ts'),
  join(CONSOLE_ROOT, 'package.json'),
  join(REPOSITORY, 'client', 'src'),
  // How it is built: a change here (e.g. the NODE_ENV of the build) must rebuild too.
  join(REPOSITORY, 'lib', 'console', 'vite-build.ts'),
  join(REPOSITORY, 'functions', 'local', 'console-build.ts'),
];

/** A hash of every source file's path and content. */
export function consoleSourceHash(): string {
  const hash = createHash('sha256');
  for (const file of SOURCES.flatMap(filesUnder)) {
    hash.update(relative(REPOSITORY, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

/** True when console/dist was built from the sources as they are now. */
export function consoleBuildIsCurrent(): boolean {
  return existsSync(HASH_FILE) && readFileSync(HASH_FILE, 'utf8') === consoleSourceHash();
}

/**
 * Builds the console when missing or stale and answers its folder. Throws with Vite's output when
 * the build fails: a console that cannot be built must not be served from an older build.
 */
export function ensureConsoleBuilt(log: (line: string) => void = () => undefined): string {
  if (consoleBuildIsCurrent()) return CONSOLE_DIST;
  log('Building the console (console/ changed since its last build)...');
  buildConsole(CONSOLE_ROOT, CONSOLE_DIST);
  writeFileSync(HASH_FILE, consoleSourceHash());
  return CONSOLE_DIST;
}
