import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NO_SPREAD, ReleaseSpread } from '#core/release-spread';

const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);
const DUE = NOW + 30_000;

describe('release spread', () => {
  it('releases the first readyPerSecond runs of a second baseLeadMs early, each further group a second earlier', () => {
    const spread = new ReleaseSpread({ baseLeadMs: 1_000, readyPerSecond: 3, maxLeadMs: 60_000 });
    const leads = Array.from({ length: 8 }, () => spread.leadMs(DUE, NOW));
    expect(leads).toEqual([1_000, 1_000, 1_000, 2_000, 2_000, 2_000, 3_000, 3_000]);
  });

  it('counts each due second on its own: another second starts again at the base lead', () => {
    const spread = new ReleaseSpread({ baseLeadMs: 0, readyPerSecond: 1, maxLeadMs: 60_000 });
    expect(spread.leadMs(DUE, NOW)).toBe(0);
    expect(spread.leadMs(DUE + 500, NOW)).toBe(1_000);
    expect(spread.leadMs(DUE + 1_000, NOW)).toBe(0);
  });

  it('never releases earlier than maxLeadMs, nor before now (a lead longer than the time left is the time left)', () => {
    const spread = new ReleaseSpread({ baseLeadMs: 1_000, readyPerSecond: 1, maxLeadMs: 4_000 });
    const leads = Array.from({ length: 10 }, () => spread.leadMs(DUE, NOW));
    expect(Math.max(...leads)).toBe(4_000);
    const soon = new ReleaseSpread({ baseLeadMs: 5_000, readyPerSecond: 100, maxLeadMs: 10_000 });
    expect(soon.leadMs(NOW + 2_000, NOW)).toBe(2_000);
  });

  it('does not spread runs already due, and does not count them', () => {
    const spread = new ReleaseSpread({ baseLeadMs: 1_000, readyPerSecond: 1, maxLeadMs: 10_000 });
    expect(spread.leadMs(NOW - 5, NOW)).toBe(0);
    expect(spread.leadMs(NOW, NOW)).toBe(0);
    expect(spread.size).toBe(0);
  });

  it('the deployed default releases every run in the second before, as whole-second delays always did', () => {
    const spread = new ReleaseSpread(NO_SPREAD);
    for (let i = 0; i < 1_000; i++) expect(spread.leadMs(DUE, NOW)).toBe(0);
  });

  it('forgets seconds long past, so a long-lived scanner does not grow without bound', () => {
    const spread = new ReleaseSpread({ baseLeadMs: 0, readyPerSecond: 10, maxLeadMs: 10_000 });
    for (let s = 0; s < 500; s++) spread.leadMs(NOW + s * 1_000 + 5_000, NOW + s * 1_000);
    expect(spread.size).toBeLessThanOrEqual(70);
  });

  it('property: a lead is within [0, min(maxLeadMs, time left)] and never decreases within a second', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5_000 }),
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 0, max: 20_000 }),
        fc.array(fc.integer({ min: -2_000, max: 30_000 }), { minLength: 1, maxLength: 300 }),
        (baseLeadMs, readyPerSecond, maxLeadMs, offsets) => {
          const spread = new ReleaseSpread({ baseLeadMs, readyPerSecond, maxLeadMs });
          const last = new Map<number, number>();
          for (const offset of offsets) {
            const releaseAt = NOW + offset;
            const lead = spread.leadMs(releaseAt, NOW);
            expect(lead).toBeGreaterThanOrEqual(0);
            expect(lead).toBeLessThanOrEqual(Math.max(0, Math.min(maxLeadMs, releaseAt - NOW)));
            const second = Math.floor(releaseAt / 1000);
            if (releaseAt > NOW && (last.get(second) ?? -1) > lead) {
              // Only the time left may cut a later run's lead below an earlier one's.
              expect(lead).toBe(releaseAt - NOW);
            }
            last.set(second, lead);
          }
        },
      ),
    );
  });
});
