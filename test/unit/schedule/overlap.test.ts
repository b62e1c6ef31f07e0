import { describe, expect, it } from 'vitest';
import { decideOverlap, mayHoldInFlight } from '#core/schedule/overlap';

const OCCURRENCE = Date.parse('2026-06-01T12:00:00Z');
const NOW = OCCURRENCE + 100;
const marker = (scheduledFor: number, until: number) => ({ scheduledFor, runId: 'R-held', until });

describe('the in-flight marker of forbid', () => {
  it('may be taken when free, expired, or held by the same occurrence (its retry)', () => {
    expect(mayHoldInFlight(undefined, OCCURRENCE, NOW)).toBe(true);
    expect(mayHoldInFlight(marker(OCCURRENCE - 2_000, NOW - 1), OCCURRENCE, NOW)).toBe(true);
    expect(mayHoldInFlight(marker(OCCURRENCE, NOW + 60_000), OCCURRENCE, NOW)).toBe(true);
  });

  it('may not be taken while another occurrence holds it, however old that occurrence is', () => {
    expect(mayHoldInFlight(marker(OCCURRENCE - 2_000, NOW + 1), OCCURRENCE, NOW)).toBe(false);
    expect(mayHoldInFlight(marker(OCCURRENCE - 3_600_000, NOW), OCCURRENCE, NOW)).toBe(false);
    expect(mayHoldInFlight(marker(OCCURRENCE + 2_000, NOW + 1), OCCURRENCE, NOW)).toBe(false);
  });
});

describe('decideOverlap', () => {
  it('skips under forbid while another occurrence holds the job, naming it', () => {
    const decision = decideOverlap('forbid', marker(OCCURRENCE - 4_000, NOW + 1_000), OCCURRENCE, NOW);

    expect(decision).toEqual({
      action: 'skip',
      reason: 'overlap forbidden: the occurrence of 2026-06-01T11:59:56.000Z (run R-held) is still in flight',
    });
  });

  it('runs under forbid when the holder expired, is its own occurrence, or there is none', () => {
    expect(decideOverlap('forbid', marker(OCCURRENCE - 4_000, NOW - 1), OCCURRENCE, NOW)).toEqual({ action: 'run' });
    expect(decideOverlap('forbid', marker(OCCURRENCE, NOW + 1_000), OCCURRENCE, NOW)).toEqual({ action: 'run' });
    expect(decideOverlap('forbid', undefined, OCCURRENCE, NOW)).toEqual({ action: 'run' });
  });

  it('runs under allow even while another occurrence holds the job', () => {
    expect(decideOverlap('allow', marker(OCCURRENCE - 4_000, NOW + 1_000), OCCURRENCE, NOW)).toEqual({ action: 'run' });
  });

  it('never throws on a stored time outside the Date range', () => {
    const decision = decideOverlap('forbid', marker(9e15, 9e15), OCCURRENCE, NOW);

    expect(decision).toMatchObject({ action: 'skip', reason: expect.stringContaining('9000000000000000') });
  });
});
