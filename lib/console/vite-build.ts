/**
 * `vite build` of the console, one way for both its users: the CDK asset (lib/constructs/
 * console-site.ts, at synth) and the local runtime (functions/local/console-build.ts, at npm start
 * and before the browser tests). No CDK import here: the local runtime loads it on every start.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `vite build` of the console into CDK's output folder; throws with vite's output when it fails. */
export function buildConsole(sourceDir: string, outputDir: string): true {
  const vite = join(PROJECT_ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  if (!existsSync(vite)) {
    throw new Error(`Building the console needs vite (${vite}): run npm ci at the repository root`);
  }
  const result = spawnSync(process.execPath, [vite, 'build', '--outDir', outputDir, '--emptyOutDir'], {
    cwd: sourceDir,
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (result.status !== 0) {
    throw new Error(
      `vite build of the console (${sourceDir}) failed${result.error ? `: ${result.error.message}` : ''}\n${result.stdout}\n${result.stderr}`,
    );
  }
  if (!existsSync(join(outputDir, 'index.html'))) {
    throw new Error(`vite build of the console (${sourceDir}) wrote no index.html to ${outputDir}`);
  }
  return true;
}
