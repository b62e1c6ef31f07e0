/**
 * Properties of every schedule type over the whole stored range: occurrences ascend strictly, stay
 * inside [startAt, endAt] and never pass LATEST_INSTANT, respect maxRuns, are the same whether
 * asked for at once or walked one at a time (as the scanner walks them), and every question
 * returns (a schedule near the end of the range ends instead of searching forever).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LATEST_INSTANT } from '#core/bounds';
import { nextOccurrence, occurrencesBetween, runsLeft, upcoming } from '#core/schedule/occurrences';
import type { ScheduleSpec } from '#core/schedule/types';
import { anySchedule, cronSchedule, intervalSchedule, onceSchedule, storedInstant } from './arbitraries.ts';

const startOf = (schedule: ScheduleSpec) => (schedule.type === 'once' ? schedule.at : schedule.startAt);
const endOf = (schedule: ScheduleSpec) =>
  Math.min(schedule.type === 'once' ? schedule.at : (schedule.endAt ?? LATEST_INSTANT), LATEST_INSTANT);

function expectWellFormed(schedule: ScheduleSpec, found: number[], from: number, soFar: number, n: number) {
  expect(found.length).toBeLessThanOrEqual(Math.min(n, runsLeft(schedule, soFar)));
  found.forEach((instant, index) => {
    expect(Number.isSafeInteger(instant)).toBe(true);
    expect(instant).toBeGreaterThanOrEqual(Math.max(from, startOf(schedule)));
    expect(instant).toBeLessThanOrEqual(endOf(schedule));
    if (index > 0) expect(instant).toBeGreaterThan(found[index - 1] as number);
  });
}

const soFar = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 10 }));

describe('occurrences of every schedule type over the whole range', () => {
  for (const [name, schedules, runs] of [
    ['once', onceSchedule, 300],
    ['interval', intervalSchedule, 1000],
    ['cron', cronSchedule, 300],
  ] as const) {
    it(`${name}: ascend, stay within [startAt, endAt] and LATEST_INSTANT, and respect maxRuns`, () => {
      fc.assert(
        fc.property(schedules, storedInstant, soFar, fc.integer({ min: 1, max: 6 }), (schedule, from, count, n) => {
          expectWellFormed(schedule, upcoming(schedule, from, count, n), from, count, n);
        }),
        { numRuns: runs },
      );
    });

    it(`${name}: walking one occurrence at a time gives what asking for several at once gives`, () => {
      fc.assert(
        fc.property(schedules, storedInstant, fc.integer({ min: 1, max: 5 }), (schedule, from, n) => {
          const atOnce = upcoming(schedule, from, 0, n);
          const walked: number[] = [];
          let cursor: number | undefined = from;
          while (walked.length < n && cursor !== undefined) {
            const next = nextOccurrence(schedule, cursor, walked.length);
            if (next === undefined) break;
            walked.push(next);
            cursor = next + 1;
          }
          expect(walked).toEqual(atOnce);
        }),
        { numRuns: Math.ceil(runs / 2) },
      );
    });

    it(`${name}: a window holds exactly the occurrences of the sequence that fall inside it`, () => {
      fc.assert(
        fc.property(
          schedules,
          storedInstant,
          fc.integer({ min: 0, max: 400 * 86_400_000 }),
          (schedule, from, width) => {
            const until = Math.min(from + width, LATEST_INSTANT);
            const inWindow = occurrencesBetween(schedule, from, until, 0, 50);
            const sequence = upcoming(schedule, from, 0, 50);
            const expected = sequence.filter((instant) => instant <= until);
            // The window may be cut by its own limit of 50; compare what both could hold.
            expect(inWindow).toEqual(expected.slice(0, inWindow.length));
            if (inWindow.length < 50) expect(inWindow).toEqual(expected);
          },
        ),
        { numRuns: Math.ceil(runs / 2) },
      );
    });
  }

  it('interval: every occurrence is startAt plus a whole number of periods, with none of them skipped', () => {
    fc.assert(
      fc.property(intervalSchedule, storedInstant, (schedule, from) => {
        if (schedule.type !== 'interval') return;
        const period = schedule.everySeconds * 1000;
        const found = upcoming(schedule, from, 0, 4);
        for (const [index, instant] of found.entries()) {
          expect((instant - schedule.startAt) % period).toBe(0);
          if (index > 0) expect(instant - (found[index - 1] as number)).toBe(period);
        }
        // The first one is the first slot at or after `from`: the slot before it is earlier.
        const first = found[0];
        if (first !== undefined && first > schedule.startAt) expect(first - period).toBeLessThan(from);
      }),
      { numRuns: 2000 },
    );
  });

  it('ends every schedule before the end of the range, whatever it is asked from the last days of 2199', () => {
    const lastDays = fc.integer({ min: LATEST_INSTANT - 3 * 86_400_000, max: LATEST_INSTANT });
    fc.assert(
      fc.property(anySchedule, lastDays, (schedule, from) => {
        const found = upcoming(schedule, from, 0, 1000);
        expectWellFormed(schedule, found, from, 0, 1000);
        expect(nextOccurrence(schedule, LATEST_INSTANT + 1, 0)).toBeUndefined();
      }),
      { numRuns: 100 },
    );
  });
});
