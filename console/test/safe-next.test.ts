/**
 * Sign-in's `next` parameter: only a path of the console's own origin is followed. A check for a
 * leading `/` alone lets `/\evil.com` through, which the URL parser reads as `//evil.com`.
 */
import { describe, expect, it } from 'vitest';
import { safeNext } from '../src/safe-next.ts';

const ORIGIN = 'http://localhost:3000';

describe('safeNext', () => {
  it('follows a path of the console, with its query and fragment', () => {
    expect(safeNext('/jobs/01J?status=PAUSED#runs', ORIGIN)).toBe('/jobs/01J?status=PAUSED#runs');
    expect(safeNext('/health', ORIGIN)).toBe('/health');
  });

  it('goes home for nothing, or a value that is not a path', () => {
    expect(safeNext(null, ORIGIN)).toBe('/');
    expect(safeNext('', ORIGIN)).toBe('/');
    expect(safeNext('https://evil.example/', ORIGIN)).toBe('/');
    expect(safeNext('jobs', ORIGIN)).toBe('/');
  });

  it('never follows a value the browser reads as another origin', () => {
    for (const next of [
      '//evil.example',
      '/\\evil.example',
      '/\\/evil.example',
      '/\t/evil.example',
      '/\n/evil.example',
    ]) {
      expect(new URL(safeNext(next, ORIGIN), ORIGIN).origin).toBe(ORIGIN);
    }
  });
});
