import { describe, expect, it } from 'vitest';
import type { ScheduleSpec } from '#core/schedule/index';
import { nextOccurrence, occurrencesBetween, upcoming } from '#core/schedule/index';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const MINUTE = 60_000;

describe('interval occurrences', () => {
  it('anchors occurrence k at startAt + k * everySeconds, whatever time the question is asked', () => {
    // prepare
    const schedule: ScheduleSpec = { type: 'interval', everySeconds: 60, startAt: T0 };
    // act
    const justAfterStart = nextOccurrence(schedule, T0 + 1, 0);
    const oneMsBeforeSecond = nextOccurrence(schedule, T0 + MINUTE - 1, 0);
    const exactlyOnSecond = nextOccurrence(schedule, T0 + MINUTE, 0);
    const lateScanner = nextOccurrence(schedule, T0 + 10 * MINUTE + 37_123, 0);
    // assess
    expect(justAfterStart).toBe(T0 + MINUTE);
    expect(oneMsBeforeSecond).toBe(T0 + MINUTE);
    expect(exactlyOnSecond).toBe(T0 + MINUTE);
    expect(lateScanner).toBe(T0 + 11 * MINUTE);
  });

  it('never drifts: the thousandth occurrence of a 7-second interval is exactly 7000 s after the first', () => {
    // prepare
    const startAt = 1_767_225_600_123;
    const schedule: ScheduleSpec = { type: 'interval', everySeconds: 7, startAt };
    // act
    const times = upcoming(schedule, startAt, 0, 1001);
    // assess
    expect(times).toHaveLength(1001);
    expect(times.every((time, k) => time === startAt + k * 7000)).toBe(true);
  });

  it('answers in constant time from billions of periods after startAt', () => {
    // prepare: a loop from startAt would run 7e9 iterations and time the test out
    const schedule: ScheduleSpec = { type: 'interval', everySeconds: 1, startAt: 0 };
    const from = 7_000_000_000_001;
    // act
    const next = nextOccurrence(schedule, from, 0);
    const window = occurrencesBetween(schedule, from, from + 2_500, 0, 10);
    // assess
    expect(next).toBe(7_000_000_001_000);
    expect(window).toEqual([7_000_000_001_000, 7_000_000_002_000]);
  });

  it('lands exactly on a slot far from an odd startAt despite float division', () => {
    // prepare
    const startAt = 1_700_000_000_123;
    const schedule: ScheduleSpec = { type: 'interval', everySeconds: 7, startAt };
    const slot = startAt + 500_000_000 * 7000;
    // act
    const onSlot = nextOccurrence(schedule, slot, 0);
    const justAfter = nextOccurrence(schedule, slot + 1, 0);
    // assess
    expect(onSlot).toBe(slot);
    expect(justAfter).toBe(slot + 7000);
  });

  it('starts at startAt when asked from before it', () => {
    // prepare
    const schedule: ScheduleSpec = { type: 'interval', everySeconds: 30, startAt: T0 };
    // act
    const times = upcoming(schedule, T0 - 5 * MINUTE, 0, 3);
    // assess
    expect(times).toEqual([T0, T0 + 30_000, T0 + 60_000]);
  });

  it('includes an occurrence exactly at endAt and nothing after it', () => {
    // prepare
    const schedule: ScheduleSpec = { type: 'interval', everySeconds: 60, startAt: T0, endAt: T0 + 3 * MINUTE };
    // act
    const times = upcoming(schedule, T0, 0, 10);
    const afterEnd = nextOccurrence(schedule, T0 + 3 * MINUTE + 1, 0);
    // assess
    expect(times).toEqual([T0, T0 + MINUTE, T0 + 2 * MINUTE, T0 + 3 * MINUTE]);
    expect(afterEnd).toBeUndefined();
  });

  it('stops at the last slot before an endAt that falls between slots', () => {
    // prepare
    const schedule: ScheduleSpec = { type: 'interval', everySeconds: 60, startAt: T0, endAt: T0 + 150_000 };
    // act
    const times = occurrencesBetween(schedule, T0, T0 + 10 * MINUTE, 0, 100);
    // assess
    expect(times).toEqual([T0, T0 + MINUTE, T0 + 2 * MINUTE]);
  });

  it('gives only the runs maxRuns still allows, counting the ones already materialized', () => {
    // prepare
    const schedule: ScheduleSpec = { type: 'interval', everySeconds: 60, startAt: T0, maxRuns: 5 };
    // act
    const afterTwo = upcoming(schedule, T0 + 2 * MINUTE, 2, 10);
    const afterFive = nextOccurrence(schedule, T0 + 5 * MINUTE, 5);
    // assess
    expect(afterTwo).toEqual([T0 + 2 * MINUTE, T0 + 3 * MINUTE, T0 + 4 * MINUTE]);
    expect(afterFive).toBeUndefined();
  });

  it('returns at most limit occurrences, ascending, within the inclusive window', () => {
    // prepare
    const schedule: ScheduleSpec = { type: 'interval', everySeconds: 10, startAt: T0 };
    // act
    const limited = occurrencesBetween(schedule, T0, T0 + MINUTE, 0, 4);
    const inclusive = occurrencesBetween(schedule, T0 + 10_000, T0 + 30_000, 0, 100);
    const empty = occurrencesBetween(schedule, T0 + 1, T0 + 9_999, 0, 100);
    // assess
    expect(limited).toEqual([T0, T0 + 10_000, T0 + 20_000, T0 + 30_000]);
    expect(inclusive).toEqual([T0 + 10_000, T0 + 20_000, T0 + 30_000]);
    expect(empty).toEqual([]);
  });

  it('refuses an unbounded window with an unbounded limit instead of looping forever', () => {
    // prepare
    const schedule: ScheduleSpec = { type: 'interval', everySeconds: 1, startAt: T0 };
    // act
    const unbounded = () => occurrencesBetween(schedule, T0, Number.POSITIVE_INFINITY, 0, Number.POSITIVE_INFINITY);
    // assess
    expect(unbounded).toThrow(RangeError);
  });
});

describe('once occurrences', () => {
  const schedule: ScheduleSpec = { type: 'once', at: T0 };

  it('fires once at its instant', () => {
    // act
    const times = upcoming(schedule, T0 - MINUTE, 0, 5);
    // assess
    expect(times).toEqual([T0]);
  });

  it('is exhausted once materialized or once asked about after its instant', () => {
    // act
    const materialized = nextOccurrence(schedule, T0 - MINUTE, 1);
    const asked = nextOccurrence(schedule, T0 + 1, 0);
    // assess
    expect(materialized).toBeUndefined();
    expect(asked).toBeUndefined();
  });
});
