/**
 * The console's first-load budget: the JavaScript index.html loads before anything renders (its
 * entry script and every module it preloads), gzipped, at most 250 KB. Pages loaded lazily (charts)
 * are outside it. The size is printed so a change that grows it shows in the test output.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CONSOLE_DIST, ensureConsoleBuilt } from '../../functions/local/console-build.ts';

const BUDGET_BYTES = 250 * 1024;

/** The scripts index.html makes the browser fetch at once: module entries and modulepreloads. */
export function firstLoadScripts(indexHtml: string): string[] {
  const scripts = [...indexHtml.matchAll(/<script[^>]*type="module"[^>]*src="([^"]+)"/g)].map((m) => m[1] as string);
  const preloads = [...indexHtml.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)].map(
    (m) => m[1] as string,
  );
  return [...new Set([...scripts, ...preloads])];
}

describe('console bundle', () => {
  it('loads at most 250 KB of gzipped JavaScript before the first page renders', () => {
    ensureConsoleBuilt();
    const index = readFileSync(join(CONSOLE_DIST, 'index.html'), 'utf8');
    const scripts = firstLoadScripts(index);
    expect(scripts.length).toBeGreaterThan(0);
    const sizes = scripts.map((src) => gzipSync(readFileSync(join(CONSOLE_DIST, src))).length);
    const total = sizes.reduce((sum, size) => sum + size, 0);
    console.log(`console first load: ${(total / 1024).toFixed(1)} KB gzipped JS in ${scripts.length} file(s)`);
    expect(total).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  it('counts preloaded modules as first load, not only the entry script', () => {
    const html =
      '<script type="module" crossorigin src="/assets/index-a.js"></script><link rel="modulepreload" crossorigin href="/assets/vendor-b.js">';
    expect(firstLoadScripts(html)).toEqual(['/assets/index-a.js', '/assets/vendor-b.js']);
  });
});
