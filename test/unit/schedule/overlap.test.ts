import { describe, expect, it } from 'vitest';
import { decideOverlap } from '#core/schedule/index';

describe('decideOverlap', () => {
  it.each(['QUEUED', 'RUNNING'])('skips under forbid while the previous run is %s', (status) => {
    // act
    const decision = decideOverlap('forbid', { status });
    // assess
    expect(decision).toEqual({ action: 'skip', reason: `overlap forbidden: previous run is still ${status}` });
  });

  it.each(['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED', 'DEAD_LETTERED'])(
    'runs under forbid once the previous run is %s',
    (status) => {
      // act
      const decision = decideOverlap('forbid', { status });
      // assess
      expect(decision).toEqual({ action: 'run' });
    },
  );

  it('runs under forbid when there is no previous run', () => {
    // act
    const decision = decideOverlap('forbid', undefined);
    // assess
    expect(decision).toEqual({ action: 'run' });
  });

  it('runs under allow even while the previous run is RUNNING', () => {
    // act
    const decision = decideOverlap('allow', { status: 'RUNNING' });
    // assess
    expect(decision).toEqual({ action: 'run' });
  });
});
