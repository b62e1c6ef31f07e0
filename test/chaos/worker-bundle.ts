/**
 * Bundles worker-process.ts (and the handler modules it runs) into one ES module with esbuild,
 * as CDK bundles the handlers for Lambda. A restarted worker then starts in well under a second
 * instead of having tsx compile a few hundred files again, which on a loaded two-core machine
 * took longer than the time between two kills. Packages stay external and load from
 * node_modules, so the bundle is written inside the repository.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** Writes the bundle and returns its path. */
export async function bundleWorker(): Promise<string> {
  const outdir = fileURLToPath(new URL('../../node_modules/.cache/chronos-chaos/', import.meta.url));
  mkdirSync(outdir, { recursive: true });
  const outfile = `${outdir}worker-${process.pid}.mjs`;
  await build({
    entryPoints: [fileURLToPath(new URL('./worker-process.ts', import.meta.url))],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    packages: 'external',
    // Synthesis (aws-cdk-lib, cdk-nag) is imported only when the templates' cache misses, which it
    // never does in a worker: the coordinator synthesized them. Bundled, esbuild would hoist its
    // packages to static imports, and every restarted worker would load aws-cdk-lib (seconds).
    external: ['*/lib/app.ts'],
    logLevel: 'error',
  });
  return outfile;
}
