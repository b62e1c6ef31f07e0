/**
 * The schedule core is bounded at both ends: parsing refuses numbers and dates past what every
 * later stage can store (bounds.ts), and the occurrence math never yields an instant after the
 * latest representable one, so a job stored with extreme values simply ends.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LATEST_INSTANT, MAX_EVERY_SECONDS, MAX_RUNS } from '#core/bounds';
import {
  type FieldError,
  nextOccurrence,
  occurrencesBetween,
  parseSchedule,
  type ScheduleSpec,
  upcoming,
} from '#core/schedule/index';
import { resolveMisfire } from '#core/schedule/misfire';

const NOW = Date.parse('2026-05-01T12:00:00Z');
const fieldsOf = (input: unknown): string[] => {
  const result = parseSchedule(input, NOW);
  return result.ok ? [] : result.errors.map((error: FieldError) => error.field);
};

describe('parseSchedule bounds', () => {
  it('refuses an everySeconds near 9e12 naming schedule.everySeconds, and accepts ten years exactly', () => {
    // act
    const huge = fieldsOf({ type: 'interval', everySeconds: 9_000_000_000_000 });
    const justOver = fieldsOf({ type: 'interval', everySeconds: MAX_EVERY_SECONDS + 1 });
    const tenYears = parseSchedule({ type: 'interval', everySeconds: MAX_EVERY_SECONDS }, NOW);
    // assess
    expect(huge).toEqual(['schedule.everySeconds']);
    expect(justOver).toEqual(['schedule.everySeconds']);
    expect(tenYears.ok).toBe(true);
  });

  it('refuses maxRuns past MAX_RUNS and accepts it exactly', () => {
    // act
    const over = fieldsOf({ type: 'interval', everySeconds: 60, maxRuns: MAX_RUNS + 1 });
    const unsafe = fieldsOf({ type: 'cron', expression: '* * * * *', maxRuns: 2 ** 60 });
    const exactly = parseSchedule({ type: 'interval', everySeconds: 60, maxRuns: MAX_RUNS }, NOW);
    // assess
    expect(over).toEqual(['schedule.maxRuns']);
    expect(unsafe).toEqual(['schedule.maxRuns']);
    expect(exactly.ok).toBe(true);
  });

  it('refuses dates before 1970 or after 2199 on at, startAt and endAt, naming each', () => {
    // act
    const at = fieldsOf({ type: 'once', at: '2200-01-01T00:00:00Z' });
    const before1970 = fieldsOf({ type: 'once', at: '1969-12-31T23:59:59.999Z' });
    const both = fieldsOf({
      type: 'cron',
      expression: '0 * * * *',
      startAt: '0001-01-01T00:00:00Z',
      endAt: '9999-12-31T23:59:59Z',
    });
    // assess
    expect(at).toEqual(['schedule.at']);
    expect(before1970).toEqual(['schedule.at']);
    expect(both.sort()).toEqual(['schedule.endAt', 'schedule.startAt']);
  });

  it('accepts the first and the last representable instants', () => {
    // act
    const first = parseSchedule({ type: 'once', at: '1970-01-01T00:00:00Z' }, NOW);
    const last = parseSchedule({ type: 'once', at: '2199-12-31T23:59:59.999Z' }, NOW);
    // assess
    expect(first).toEqual({ ok: true, schedule: { type: 'once', at: 0 } });
    expect(last).toEqual({ ok: true, schedule: { type: 'once', at: LATEST_INSTANT } });
  });

  it('refuses a cron schedule starting so late that it never fires before the end of the range', () => {
    // act
    const fields = fieldsOf({ type: 'cron', expression: '0 0 1 1 *', startAt: '2199-06-01T00:00:00Z' });
    // assess
    expect(fields).toEqual(['schedule.expression']);
  });
});

describe('occurrences end at the latest representable instant', () => {
  it('gives no interval occurrence after LATEST_INSTANT, even for a stored job with a huge period', () => {
    // prepare: a job stored before the edge bounds existed
    const schedule: ScheduleSpec = { type: 'interval', everySeconds: 9_000_000_000_000, startAt: NOW };
    // act
    const next = nextOccurrence(schedule, NOW + 1, 1);
    const window = occurrencesBetween(schedule, NOW, Number.POSITIVE_INFINITY, 0, 10);
    // assess
    expect(next).toBeUndefined();
    expect(window).toEqual([NOW]);
  });

  it('ends an every-ten-years schedule at its last occurrence inside the range', () => {
    // prepare
    const schedule: ScheduleSpec = { type: 'interval', everySeconds: MAX_EVERY_SECONDS, startAt: NOW };
    // act
    const all = upcoming(schedule, NOW, 0, 1000);
    // assess
    expect(all.length).toBeGreaterThan(10);
    expect(all.length).toBeLessThan(1000);
    expect(Math.max(...all)).toBeLessThanOrEqual(LATEST_INSTANT);
    expect(nextOccurrence(schedule, (all.at(-1) as number) + 1, 0)).toBeUndefined();
  });

  it('gives nothing for a once job stored past the range, or a cron asked about the far future', () => {
    // prepare
    const once: ScheduleSpec = { type: 'once', at: LATEST_INSTANT + 1 };
    const cron: ScheduleSpec = { type: 'cron', expression: '0 0 1 1 *', timezone: 'UTC', startAt: NOW };
    // act / assess
    expect(nextOccurrence(once, 0, 0)).toBeUndefined();
    expect(nextOccurrence(cron, LATEST_INSTANT - 1000, 0)).toBeUndefined();
    expect(nextOccurrence(cron, Date.UTC(2199, 0, 1), 0)).toBe(Date.UTC(2199, 0, 1));
  });

  it('resolves a misfire of a stored extreme job to no next occurrence instead of an unsafe one', () => {
    // prepare
    const schedule: ScheduleSpec = { type: 'interval', everySeconds: 9_000_000_000_000, startAt: NOW - 3_600_000 };
    // act
    const resolution = resolveMisfire('fire_once', schedule, NOW - 3_600_000, NOW, 0);
    // assess
    expect(resolution.fire).toEqual([NOW - 3_600_000]);
    expect(resolution.nextFireAt).toBeUndefined();
  });

  it('never yields an unsafe or out-of-range instant, whatever a stored interval schedule holds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        fc.integer({ min: 0, max: LATEST_INSTANT }),
        fc.integer({ min: 0, max: LATEST_INSTANT }),
        (everySeconds, startAt, from) => {
          const schedule: ScheduleSpec = { type: 'interval', everySeconds, startAt };
          const found = occurrencesBetween(schedule, from, Number.POSITIVE_INFINITY, 0, 3);
          for (const instant of found) {
            expect(Number.isSafeInteger(instant)).toBe(true);
            expect(instant).toBeLessThanOrEqual(LATEST_INSTANT);
            expect(instant).toBeGreaterThanOrEqual(from);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
