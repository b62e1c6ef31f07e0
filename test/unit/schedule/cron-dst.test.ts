import { describe, expect, it } from 'vitest';
import { nextOccurrence, occurrencesBetween, type ScheduleSpec } from '#core/schedule/index';

// 2026 transitions. New York: 02:00 EST -> 03:00 EDT on 03-08 (07:00Z); 02:00 EDT -> 01:00 EST on 11-01 (06:00Z).
// Berlin: 02:00 CET -> 03:00 CEST on 03-29 (01:00Z); 03:00 CEST -> 02:00 CET on 10-25 (01:00Z).
const NEW_YORK = 'America/New_York';
const BERLIN = 'Europe/Berlin';

const at = (iso: string) => Date.parse(iso);
const isoOf = (times: number[]) => times.map((time) => new Date(time).toISOString());
const cron = (expression: string, timezone: string): ScheduleSpec => ({
  type: 'cron',
  expression,
  timezone,
  startAt: 0,
});
const between = (schedule: ScheduleSpec, from: string, until: string) =>
  isoOf(occurrencesBetween(schedule, at(from), at(until), 0, 1000));

describe('spring forward: a wall-clock time that does not exist', () => {
  it('fires once at the first valid instant after the spring-forward gap (New York)', () => {
    // prepare
    const daily = cron('30 2 * * *', NEW_YORK);
    // act
    const times = between(daily, '2026-03-07T00:00:00Z', '2026-03-09T23:59:59Z');
    // assess: 02:30 EST, then 03:00 EDT (the gap's end), then 02:30 EDT
    expect(times).toEqual(['2026-03-07T07:30:00.000Z', '2026-03-08T07:00:00.000Z', '2026-03-09T06:30:00.000Z']);
  });

  it('fires once at the first valid instant after the spring-forward gap (Berlin)', () => {
    // prepare
    const daily = cron('30 2 * * *', BERLIN);
    // act
    const times = between(daily, '2026-03-28T00:00:00Z', '2026-03-30T23:59:59Z');
    // assess: 02:30 CET, then 03:00 CEST, then 02:30 CEST
    expect(times).toEqual(['2026-03-28T01:30:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z']);
  });

  it('coalesces every reading inside the gap into one run', () => {
    // prepare
    const quarterHoursAtTwo = cron('*/15 2 * * *', NEW_YORK);
    // act
    const times = between(quarterHoursAtTwo, '2026-03-08T00:00:00Z', '2026-03-08T23:59:59Z');
    // assess
    expect(times).toEqual(['2026-03-08T07:00:00.000Z']);
  });

  it('does not double-fire when the gap end is itself a scheduled time', () => {
    // prepare
    const twoAndThree = cron('0 2,3 * * *', BERLIN);
    // act
    const times = between(twoAndThree, '2026-03-29T00:00:00Z', '2026-03-29T23:59:59Z');
    // assess: 02:00 moves to 03:00 CEST, which 03:00 already names
    expect(times).toEqual(['2026-03-29T01:00:00.000Z']);
  });

  it('moves a 6-field time in the gap to the gap end, not to the same offset within the next hour', () => {
    // prepare
    const withSeconds = cron('30 30 2 * * *', NEW_YORK);
    // act
    const next = nextOccurrence(withSeconds, at('2026-03-08T00:00:00Z'), 0);
    // assess
    expect(next).toBe(at('2026-03-08T07:00:00Z'));
  });

  it('fires an hourly job every real hour, with nothing extra for the missing hour', () => {
    // prepare
    const onTheHour = cron('0 * * * *', NEW_YORK);
    const halfPast = cron('30 * * * *', BERLIN);
    // act
    const newYork = between(onTheHour, '2026-03-08T05:00:00Z', '2026-03-08T09:00:00Z');
    const berlin = between(halfPast, '2026-03-28T23:00:00Z', '2026-03-29T02:59:59Z');
    // assess: 00:00 and 01:00 EST, then 03:00 and 04:00 EDT; 00:30 and 01:30 CET, then 03:30 and 04:30 CEST
    expect(newYork).toEqual([
      '2026-03-08T05:00:00.000Z',
      '2026-03-08T06:00:00.000Z',
      '2026-03-08T07:00:00.000Z',
      '2026-03-08T08:00:00.000Z',
      '2026-03-08T09:00:00.000Z',
    ]);
    expect(berlin).toEqual([
      '2026-03-28T23:30:00.000Z',
      '2026-03-29T00:30:00.000Z',
      '2026-03-29T01:30:00.000Z',
      '2026-03-29T02:30:00.000Z',
    ]);
  });

  it('keeps a 15-minute job on a steady 15-minute rhythm across the gap', () => {
    // prepare
    const quarterHours = cron('*/15 * * * *', NEW_YORK);
    // act
    const times = between(quarterHours, '2026-03-08T06:30:00Z', '2026-03-08T07:30:00Z');
    // assess: 01:30, 01:45 EST, then 03:00, 03:15, 03:30 EDT
    expect(times).toEqual([
      '2026-03-08T06:30:00.000Z',
      '2026-03-08T06:45:00.000Z',
      '2026-03-08T07:00:00.000Z',
      '2026-03-08T07:15:00.000Z',
      '2026-03-08T07:30:00.000Z',
    ]);
  });

  it('gives the same answer whether asked from before, at or after the gap', () => {
    // prepare
    const daily = cron('30 2 * * *', NEW_YORK);
    // act
    const fromBefore = nextOccurrence(daily, at('2026-03-08T06:59:59Z'), 0);
    const fromGapEnd = nextOccurrence(daily, at('2026-03-08T07:00:00Z'), 0);
    const fromAfter = nextOccurrence(daily, at('2026-03-08T07:10:00Z'), 0);
    // assess
    expect(fromBefore).toBe(at('2026-03-08T07:00:00Z'));
    expect(fromGapEnd).toBe(at('2026-03-08T07:00:00Z'));
    expect(fromAfter).toBe(at('2026-03-09T06:30:00Z'));
  });
});

describe('fall back: a wall-clock time that occurs twice', () => {
  it('fires a daily 01:30 job once, on the first pass, in New York', () => {
    // prepare
    const daily = cron('30 1 * * *', NEW_YORK);
    // act
    const times = between(daily, '2026-10-31T00:00:00Z', '2026-11-02T23:59:59Z');
    // assess: 01:30 EDT on each of the three days' own offsets; no 01:30 EST on 11-01
    expect(times).toEqual(['2026-10-31T05:30:00.000Z', '2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z']);
  });

  it('fires a daily 02:30 job once, on the first pass, in Berlin', () => {
    // prepare
    const daily = cron('30 2 * * *', BERLIN);
    // act
    const times = between(daily, '2026-10-24T00:00:00Z', '2026-10-26T23:59:59Z');
    // assess
    expect(times).toEqual(['2026-10-24T00:30:00.000Z', '2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
  });

  it('does not fire the second pass when asked from inside the repeated hour', () => {
    // prepare
    const daily = cron('30 1 * * *', NEW_YORK);
    // act: 01:15 EST, after 01:30 EDT has fired and before 01:30 EST
    const next = nextOccurrence(daily, at('2026-11-01T06:15:00Z'), 0);
    // assess
    expect(next).toBe(at('2026-11-02T06:30:00Z'));
  });

  it('fires an hourly job every real hour, so 01:00 fires on both passes', () => {
    // prepare
    const onTheHour = cron('0 * * * *', NEW_YORK);
    // act
    const times = between(onTheHour, '2026-11-01T04:00:00Z', '2026-11-01T07:00:00Z');
    const fromInsideFirstPass = nextOccurrence(onTheHour, at('2026-11-01T05:15:00Z'), 0);
    // assess: 00:00 EDT, 01:00 EDT, 01:00 EST, 02:00 EST
    expect(times).toEqual([
      '2026-11-01T04:00:00.000Z',
      '2026-11-01T05:00:00.000Z',
      '2026-11-01T06:00:00.000Z',
      '2026-11-01T07:00:00.000Z',
    ]);
    expect(fromInsideFirstPass).toBe(at('2026-11-01T06:00:00Z'));
  });

  it('fires a 15-minute job every 15 real minutes through the repeated hour in Berlin', () => {
    // prepare
    const quarterHours = cron('*/15 * * * *', BERLIN);
    // act
    const times = occurrencesBetween(quarterHours, at('2026-10-25T00:00:00Z'), at('2026-10-25T02:00:00Z'), 0, 100);
    // assess: 02:00..02:45 CEST, 02:00..02:45 CET, 03:00 CET
    expect(times).toHaveLength(9);
    expect(times.every((time, index) => time === at('2026-10-25T00:00:00Z') + index * 15 * 60_000)).toBe(true);
  });

  it('fires each quarter of a fixed-hour job once, not again in the repeated hour', () => {
    // prepare
    const quarterHoursAtOne = cron('*/15 1 * * *', NEW_YORK);
    // act
    const times = between(quarterHoursAtOne, '2026-11-01T00:00:00Z', '2026-11-01T23:59:59Z');
    // assess
    expect(times).toEqual([
      '2026-11-01T05:00:00.000Z',
      '2026-11-01T05:15:00.000Z',
      '2026-11-01T05:30:00.000Z',
      '2026-11-01T05:45:00.000Z',
    ]);
  });
});

// A brute-force reference: walk every minute near a transition, read the wall clock with Intl, match a small cron
// subset by hand and apply the documented policy. The implementation must agree with it over the window and from a start point every 10 minutes.
describe('agreement with a minute-by-minute reference around every 2026 transition', () => {
  const transitions = [
    { zone: NEW_YORK, at: '2026-03-08T07:00:00Z' },
    { zone: NEW_YORK, at: '2026-11-01T06:00:00Z' },
    { zone: BERLIN, at: '2026-03-29T01:00:00Z' },
    { zone: BERLIN, at: '2026-10-25T01:00:00Z' },
  ];
  const expressions = ['30 2 * * *', '0 1-3 * * *', '*/20 2 * * *', '0 * * * *', '*/15 * * * *', '45 * * * *'];

  for (const transition of transitions) {
    for (const expression of expressions) {
      it(`agrees for '${expression}' in ${transition.zone} around ${transition.at}`, () => {
        // prepare
        const from = at(transition.at) - 3 * 3_600_000;
        const until = at(transition.at) + 3 * 3_600_000;
        const expected = referenceOccurrences(expression, transition.zone, from, until);
        const schedule = cron(expression, transition.zone);
        // act
        const window = occurrencesBetween(schedule, from, until, 0, 1000);
        const starts = Array.from({ length: (until - from) / 600_000 + 1 }, (_, index) => from + index * 600_000);
        const nextFromEachStart = starts.map((start) => nextOccurrence(schedule, start, 0));
        // assess
        expect(isoOf(window)).toEqual(isoOf(expected));
        starts.forEach((start, index) => {
          const reference = expected.find((time) => time >= start);
          if (reference === undefined) expect(nextFromEachStart[index]).toBeGreaterThan(until);
          else expect(nextFromEachStart[index]).toBe(reference);
        });
      });
    }
  }
});

function referenceOccurrences(expression: string, zone: string, from: number, until: number): number[] {
  const [minuteField = '', hourField = ''] = expression.split(' ');
  const everyHour = hourField === '*';
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
  });
  // The local reading as minutes on a DST-free timeline.
  const readingOf = (instant: number) => {
    const parts = Object.fromEntries(format.formatToParts(instant).map((part) => [part.type, Number(part.value)]));
    const part = (type: string) => parts[type] ?? Number.NaN;
    return Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute')) / 60_000;
  };
  const matches = (reading: number) =>
    fieldMatches(minuteField, reading % 60) && fieldMatches(hourField, Math.floor(reading / 60) % 24);
  const seen = new Set<number>();
  const result: number[] = [];
  let previous = readingOf(from - 60_000);
  for (let instant = from; instant <= until; instant += 60_000) {
    const reading = readingOf(instant);
    const skipped = Array.from({ length: Math.max(0, reading - previous - 1) }, (_, i) => previous + 1 + i);
    const secondPass = seen.has(reading);
    const gapFires = !everyHour && skipped.some(matches);
    const readingFires = matches(reading) && (everyHour || !secondPass);
    if (gapFires || readingFires) result.push(instant);
    seen.add(reading);
    previous = reading;
  }
  return result;
}

function fieldMatches(field: string, value: number): boolean {
  if (field === '*') return true;
  if (field.startsWith('*/')) return value % Number(field.slice(2)) === 0;
  return field.split(',').some((part) => {
    const [low, high = low] = part.split('-').map(Number);
    return low !== undefined && high !== undefined && value >= low && value <= high;
  });
}
