import { describe, expect, it } from 'vitest';
import { type FieldError, parseSchedule } from '#core/schedule/index';

const NOW = Date.parse('2026-05-01T12:00:00Z');

const errorsOf = (input: unknown): FieldError[] => {
  const result = parseSchedule(input, NOW);
  return result.ok ? [] : result.errors;
};
const fieldsOf = (input: unknown) => errorsOf(input).map((error) => error.field);

describe('parseSchedule: accepted input', () => {
  it('defaults a once schedule to now', () => {
    // act
    const result = parseSchedule({ type: 'once' }, NOW);
    // assess
    expect(result).toEqual({ ok: true, schedule: { type: 'once', at: NOW } });
  });

  it('reads a once time with an offset as the instant it denotes', () => {
    // act
    const result = parseSchedule({ type: 'once', at: '2026-05-02T09:30:00+02:00' }, NOW);
    // assess
    expect(result).toEqual({ ok: true, schedule: { type: 'once', at: Date.parse('2026-05-02T07:30:00Z') } });
  });

  it('keeps milliseconds and truncates finer fractions', () => {
    // act
    const result = parseSchedule({ type: 'once', at: '2026-05-02T09:30:00.123456789Z' }, NOW);
    // assess
    expect(result).toEqual({ ok: true, schedule: { type: 'once', at: Date.parse('2026-05-02T09:30:00.123Z') } });
  });

  it('accepts a once time in the past, which fires as soon as possible', () => {
    // act
    const result = parseSchedule({ type: 'once', at: '2026-05-01T11:59:58Z' }, NOW);
    // assess
    expect(result.ok).toBe(true);
  });

  it('builds an interval with its bounds, defaulting startAt to now', () => {
    // act
    const result = parseSchedule(
      { type: 'interval', everySeconds: 300, endAt: '2026-05-02T00:00:00Z', maxRuns: 10 },
      NOW,
    );
    // assess
    expect(result).toEqual({
      ok: true,
      schedule: {
        type: 'interval',
        everySeconds: 300,
        startAt: NOW,
        endAt: Date.parse('2026-05-02T00:00:00Z'),
        maxRuns: 10,
      },
    });
  });

  it('builds a cron schedule in UTC by default', () => {
    // act
    const result = parseSchedule({ type: 'cron', expression: '0 9 * * 1-5' }, NOW);
    // assess
    expect(result).toEqual({
      ok: true,
      schedule: { type: 'cron', expression: '0 9 * * 1-5', timezone: 'UTC', startAt: NOW },
    });
  });

  it('accepts 6-field expressions, @ macros and canonicalizes the time zone spelling', () => {
    // act
    const withSeconds = parseSchedule({ type: 'cron', expression: '*/10 * * * * *', timezone: 'Europe/Berlin' }, NOW);
    const macro = parseSchedule({ type: 'cron', expression: '@daily' }, NOW);
    const lowerCase = parseSchedule({ type: 'cron', expression: '0 9 * * *', timezone: 'america/new_york' }, NOW);
    // assess
    expect(withSeconds.ok).toBe(true);
    expect(macro.ok).toBe(true);
    expect(lowerCase.ok && lowerCase.schedule.type === 'cron' && lowerCase.schedule.timezone).toBe('America/New_York');
  });

  it('accepts day names that contain an H, such as THU', () => {
    // act
    const result = parseSchedule({ type: 'cron', expression: '0 9 * * THU' }, NOW);
    // assess
    expect(result.ok).toBe(true);
  });
});

describe('parseSchedule: rejected input names the field and the reason', () => {
  it('rejects a non-object and an unknown type', () => {
    // act
    const notObject = errorsOf('every day');
    const unknownType = errorsOf({ type: 'weekly' });
    const missingType = errorsOf({});
    // assess
    expect(notObject).toEqual([{ field: 'schedule', reason: 'must be an object' }]);
    expect(unknownType).toEqual([{ field: 'schedule.type', reason: "must be one of 'once', 'interval', 'cron'" }]);
    expect(missingType.map((error) => error.field)).toEqual(['schedule.type']);
  });

  it('rejects ISO date-times without a zone designator, because the server zone would decide their meaning', () => {
    // act
    const errors = errorsOf({ type: 'once', at: '2026-05-02T09:30:00' });
    // assess
    expect(errors).toEqual([{ field: 'schedule.at', reason: 'must include a zone designator (Z or ±hh:mm)' }]);
  });

  it.each([
    ['2026-02-30T00:00:00Z', 'is not a valid calendar date and time'],
    ['2026-01-01T24:00:00Z', 'is not a valid calendar date and time'],
    ['2026-01-01T10:00:00+24:00', 'has an invalid UTC offset'],
    ['next tuesday', 'must be an ISO-8601 date-time such as 2026-03-08T09:00:00Z'],
    ['2026-01-01', 'must be an ISO-8601 date-time such as 2026-03-08T09:00:00Z'],
  ])('rejects the unparseable date %s', (text, reason) => {
    // act
    const errors = errorsOf({ type: 'interval', everySeconds: 60, startAt: text });
    // assess
    expect(errors).toEqual([{ field: 'schedule.startAt', reason }]);
  });

  it('rejects a date that is not a string', () => {
    // act
    const errors = errorsOf({ type: 'once', at: 1_777_000_000_000 });
    // assess
    expect(errors).toEqual([{ field: 'schedule.at', reason: 'must be an ISO-8601 date-time string' }]);
  });

  it.each([
    [undefined, 'is required'],
    [0, 'must be an integer from 1 to 315360000'],
    [1.5, 'must be an integer from 1 to 315360000'],
    ['60', 'must be an integer from 1 to 315360000'],
  ])('rejects everySeconds %s', (everySeconds, reason) => {
    // act
    const errors = errorsOf({ type: 'interval', everySeconds });
    // assess
    expect(errors).toEqual([{ field: 'schedule.everySeconds', reason }]);
  });

  it('rejects maxRuns below one', () => {
    // act
    const errors = errorsOf({ type: 'interval', everySeconds: 60, maxRuns: 0 });
    // assess
    expect(errors).toEqual([{ field: 'schedule.maxRuns', reason: 'must be an integer from 1 to 100000000' }]);
  });

  it.each([
    ['equal to', '2026-06-01T00:00:00Z'],
    ['before', '2026-05-31T00:00:00Z'],
  ])('rejects an endAt %s startAt', (_, endAt) => {
    // act
    const errors = errorsOf({ type: 'cron', expression: '0 * * * *', startAt: '2026-06-01T00:00:00Z', endAt });
    // assess
    expect(errors).toEqual([{ field: 'schedule.endAt', reason: 'must be after startAt' }]);
  });

  it.each([
    ['', 'must not be empty'],
    ['* * * *', 'must have 5 fields (or 6 with seconds first), got 4'],
    ['0 0 0 * * * *', 'must have 5 fields (or 6 with seconds first), got 7'],
    ['H * * * *', 'hashed (H) values are not supported'],
    ['0 H/2 * * *', 'hashed (H) values are not supported'],
    ['61 * * * *', 'invalid cron expression: Constraint error, got value 61 expected range 0-59'],
    ['every day', 'must have 5 fields (or 6 with seconds first), got 2'],
  ])('rejects the cron expression %j', (expression, reason) => {
    // act
    const errors = errorsOf({ type: 'cron', expression });
    // assess
    expect(errors).toEqual([{ field: 'schedule.expression', reason }]);
  });

  it('rejects a missing or non-string expression', () => {
    // act
    const missing = errorsOf({ type: 'cron' });
    const notString = errorsOf({ type: 'cron', expression: 5 });
    // assess
    expect(missing).toEqual([{ field: 'schedule.expression', reason: 'is required' }]);
    expect(notString).toEqual([{ field: 'schedule.expression', reason: 'must be a string' }]);
  });

  it('rejects an expression that never fires, such as 30 February', () => {
    // act
    const errors = errorsOf({ type: 'cron', expression: '0 0 30 2 *' });
    // assess
    expect(errors).toEqual([
      { field: 'schedule.expression', reason: 'never fires: no listed month has that day of month' },
    ]);
  });

  it('rejects an expression with no occurrence between startAt and endAt', () => {
    // act: New Year's Day only, in a window that skips it
    const errors = errorsOf({
      type: 'cron',
      expression: '0 0 1 1 *',
      startAt: '2026-02-01T00:00:00Z',
      endAt: '2026-12-01T00:00:00Z',
    });
    // assess
    expect(errors).toEqual([{ field: 'schedule.expression', reason: 'never fires between startAt and endAt' }]);
  });

  it('rejects an unknown time zone', () => {
    // act
    const unknown = errorsOf({ type: 'cron', expression: '0 * * * *', timezone: 'Mars/Olympus_Mons' });
    const notString = errorsOf({ type: 'cron', expression: '0 * * * *', timezone: 2 });
    // assess
    expect(unknown).toEqual([{ field: 'schedule.timezone', reason: "unknown time zone 'Mars/Olympus_Mons'" }]);
    expect(notString).toEqual([{ field: 'schedule.timezone', reason: 'must be an IANA time zone name string' }]);
  });

  it('rejects fields that do not belong to the type', () => {
    // act
    const errors = errorsOf({ type: 'once', at: '2026-06-01T00:00:00Z', everySeconds: 60, startat: 'x' });
    // assess
    expect(errors).toEqual([
      { field: 'schedule.everySeconds', reason: 'is not a field of a once schedule' },
      { field: 'schedule.startat', reason: 'is not a field of a once schedule' },
    ]);
  });

  it('reports all errors at once, not just the first', () => {
    // act
    const fields = fieldsOf({
      type: 'cron',
      expression: '99 * * * *',
      timezone: 'Nowhere/Land',
      startAt: '2026-06-01T00:00:00',
      endAt: 'soon',
      maxRuns: -1,
    });
    // assess
    expect(fields.sort()).toEqual([
      'schedule.endAt',
      'schedule.expression',
      'schedule.maxRuns',
      'schedule.startAt',
      'schedule.timezone',
    ]);
  });

  it('reports interval errors together with an endAt ordering error', () => {
    // act
    const fields = fieldsOf({
      type: 'interval',
      everySeconds: 0,
      startAt: '2026-06-02T00:00:00Z',
      endAt: '2026-06-01T00:00:00Z',
      maxRuns: 2.5,
    });
    // assess
    expect(fields.sort()).toEqual(['schedule.endAt', 'schedule.everySeconds', 'schedule.maxRuns']);
  });
});
