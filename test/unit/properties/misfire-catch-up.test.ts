/**
 * Properties of catching up after an outage, for every schedule type and policy over the whole
 * range: what fires is a subset of the schedule's slots in [nextFireAt, now], ascending, never more
 * than the cap or maxRuns allow; the next fire time is the first slot after `now`; and the same
 * window always resolves the same way (racing scanners derive the same runs).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LATEST_INSTANT } from '#core/bounds';
import { resolveMisfire } from '#core/schedule/misfire';
import { nextOccurrence, runsLeft, slotsBetween } from '#core/schedule/occurrences';
import { MISFIRE_POLICIES } from '#core/schedule/types';
import { anySchedule, storedInstant } from './arbitraries.ts';

/**
 * Outages from none to a year, mostly under a day: a long one costs a dense cron schedule the walk
 * over SKIPPED_COUNT_LIMIT slots (seconds on a loaded machine), and a day already crosses the cap.
 */
const outage = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 86_400_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 366 * 86_400_000 }) },
);

describe('misfire resolution over the whole range', () => {
  it('fires only slots of the window, ascending, within the cap and maxRuns, and moves past now', () => {
    fc.assert(
      fc.property(
        anySchedule,
        storedInstant,
        outage,
        fc.constantFrom(...MISFIRE_POLICIES),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 1, max: 100 }),
        (schedule, from, late, policy, soFar, cap) => {
          const nextFireAt = nextOccurrence(schedule, from, soFar);
          fc.pre(nextFireAt !== undefined);
          const first = nextFireAt as number;
          const now = Math.min(first + late, LATEST_INSTANT);

          const resolved = resolveMisfire(policy, schedule, first, now, soFar, cap);

          expect(resolved.fire.length).toBeLessThanOrEqual(Math.min(cap, runsLeft(schedule, soFar)));
          resolved.fire.forEach((instant, index) => {
            expect(instant).toBeGreaterThanOrEqual(first);
            expect(instant).toBeLessThanOrEqual(now);
            expect(slotsBetween(schedule, instant, instant, 1)).toEqual([instant]);
            if (index > 0) expect(instant).toBeGreaterThan(resolved.fire[index - 1] as number);
          });
          if (policy === 'skip')
            for (const instant of resolved.fire) expect(instant).toBeGreaterThanOrEqual(now - 60_000);
          if (resolved.nextFireAt !== undefined) {
            expect(resolved.nextFireAt).toBeGreaterThan(now);
            expect(resolved.nextFireAt).toBeLessThanOrEqual(LATEST_INSTANT);
            expect(resolved.nextFireAt).toBe(nextOccurrence(schedule, now + 1, 0));
          }
          expect(resolved.skipped).toBeGreaterThanOrEqual(0);
          // Deterministic: a second scanner resolving the same window derives the same runs.
          expect(resolveMisfire(policy, schedule, first, now, soFar, cap)).toEqual(resolved);
        },
      ),
      { numRuns: 80 },
    );
  });
});
