import { describe, expect, it } from 'vitest';
import { nextOccurrence, occurrencesBetween, type ScheduleSpec, upcoming } from '#core/schedule/index';

const at = (iso: string) => Date.parse(iso);
const isoOf = (times: number[]) => times.map((time) => new Date(time).toISOString());
const cron = (expression: string, timezone = 'UTC', extra: Partial<ScheduleSpec> = {}): ScheduleSpec =>
  ({ type: 'cron', expression, timezone, startAt: 0, ...extra }) as ScheduleSpec;

describe('cron occurrences', () => {
  it('includes an occurrence exactly at fromInclusive and excludes it one millisecond later', () => {
    // prepare
    const hourly = cron('0 * * * *');
    // act
    const onTheHour = nextOccurrence(hourly, at('2026-01-01T10:00:00Z'), 0);
    const justAfter = nextOccurrence(hourly, at('2026-01-01T10:00:00.001Z'), 0);
    // assess
    expect(onTheHour).toBe(at('2026-01-01T10:00:00Z'));
    expect(justAfter).toBe(at('2026-01-01T11:00:00Z'));
  });

  it('supports a sixth, leading seconds field', () => {
    // prepare
    const everyTwentySeconds = cron('*/20 * * * * *');
    // act
    const times = upcoming(everyTwentySeconds, at('2026-01-01T00:00:05Z'), 0, 4);
    // assess
    expect(isoOf(times)).toEqual([
      '2026-01-01T00:00:20.000Z',
      '2026-01-01T00:00:40.000Z',
      '2026-01-01T00:01:00.000Z',
      '2026-01-01T00:01:20.000Z',
    ]);
  });

  it('fires at the second a 6-field expression names', () => {
    // prepare
    const daily = cron('30 15 9 * * *', 'Europe/Berlin');
    // act
    const next = nextOccurrence(daily, at('2026-06-01T00:00:00Z'), 0);
    // assess: 09:15:30 CEST
    expect(next).toBe(at('2026-06-01T07:15:30Z'));
  });

  it('evaluates the expression on the wall clock of its time zone', () => {
    // prepare
    const nineAm = cron('0 9 * * 1-5', 'America/New_York');
    // act: Friday 2026-01-02, then the weekend is skipped
    const times = upcoming(nineAm, at('2026-01-02T00:00:00Z'), 0, 2);
    // assess
    expect(isoOf(times)).toEqual(['2026-01-02T14:00:00.000Z', '2026-01-05T14:00:00.000Z']);
  });

  it('honors startAt and an inclusive endAt', () => {
    // prepare
    const hourly = cron('0 * * * *', 'UTC', { startAt: at('2026-01-01T10:00:00Z'), endAt: at('2026-01-01T12:00:00Z') });
    // act
    const times = occurrencesBetween(hourly, at('2026-01-01T00:00:00Z'), at('2026-01-02T00:00:00Z'), 0, 100);
    const afterEnd = nextOccurrence(hourly, at('2026-01-01T12:00:00.001Z'), 0);
    // assess
    expect(isoOf(times)).toEqual(['2026-01-01T10:00:00.000Z', '2026-01-01T11:00:00.000Z', '2026-01-01T12:00:00.000Z']);
    expect(afterEnd).toBeUndefined();
  });

  it('gives only the runs maxRuns still allows', () => {
    // prepare
    const hourly = cron('0 * * * *', 'UTC', { maxRuns: 3 });
    // act
    const afterOne = upcoming(hourly, at('2026-01-01T01:00:00Z'), 1, 10);
    const afterThree = nextOccurrence(hourly, at('2026-01-01T03:00:00Z'), 3);
    // assess
    expect(isoOf(afterOne)).toEqual(['2026-01-01T01:00:00.000Z', '2026-01-01T02:00:00.000Z']);
    expect(afterThree).toBeUndefined();
  });

  it('returns at most limit occurrences', () => {
    // prepare
    const everyMinute = cron('* * * * *');
    // act
    const times = occurrencesBetween(everyMinute, at('2026-01-01T00:00:00Z'), at('2026-01-02T00:00:00Z'), 0, 3);
    // assess
    expect(times).toHaveLength(3);
  });

  it('finds a rare expression years ahead (29 February)', () => {
    // prepare
    const leapDay = cron('0 0 29 2 *');
    // act
    const next = nextOccurrence(leapDay, at('2026-03-01T00:00:00Z'), 0);
    // assess
    expect(next).toBe(at('2028-02-29T00:00:00Z'));
  });

  it('fires when either a restricted day of month or a restricted day of week matches', () => {
    // prepare: the 13th, or any Friday
    const either = cron('0 0 13 * 5');
    // act: 2026-02-06 is a Friday, 2026-02-13 is also a Friday, 2026-02-20 a Friday
    const times = upcoming(either, at('2026-02-01T00:00:00Z'), 0, 3);
    // assess
    expect(isoOf(times)).toEqual(['2026-02-06T00:00:00.000Z', '2026-02-13T00:00:00.000Z', '2026-02-20T00:00:00.000Z']);
  });
});
