/** The CLI's pure parts: the table formatter, option parsers and the schedule the flags make. */
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { duration, durationText, header, integer } from '../../cli/src/arguments.ts';
import { UsageError } from '../../cli/src/cli-error.ts';
import { scheduleOf } from '../../cli/src/commands/schedule-options.ts';
import { formatFields, formatTable } from '../../cli/src/table.ts';

describe('formatTable', () => {
  it('pads every column but the last to its widest cell, counting code points', () => {
    const table = formatTable(
      ['ID', 'NAME', 'STATUS'],
      [
        ['a', 'wörld', 'ACTIVE'],
        ['bbbb', null, 'PAUSED'],
      ],
    );

    expect(table.split('\n')).toEqual(['ID    NAME   STATUS', 'a     wörld  ACTIVE', 'bbbb  -      PAUSED']);
  });

  it('aligns labels of a single record', () => {
    expect(
      formatFields([
        ['ID', 'x'],
        ['Schedule', undefined],
      ]),
    ).toBe('ID        x\nSchedule  -');
  });
});

describe('option parsers', () => {
  it('reads durations in seconds, minutes, hours and days, and refuses anything else', () => {
    expect([duration('90'), duration('90s'), duration('5m'), duration('1h30m'), duration('2d')]).toEqual([
      90, 90, 300, 5400, 172_800,
    ]);
    for (const bad of ['soon', '5 m', '1.5h', '', 'h', '5m2'])
      expect(() => duration(bad), bad).toThrow(InvalidArgumentError);
    expect([durationText(90), durationText(3600), durationText(5400), durationText(172_800)]).toEqual([
      '1m30s',
      '1h',
      '1h30m',
      '2d',
    ]);
  });

  it('reads whole numbers only and headers as Name: value', () => {
    expect(integer('30')).toBe(30);
    for (const bad of ['3e1', '30s', '1.5', '']) expect(() => integer(bad), bad).toThrow(InvalidArgumentError);
    expect(header('X-Team: reports', { A: '1' })).toEqual({ A: '1', 'X-Team': 'reports' });
    expect(header('Authorization=Bearer a:b')).toEqual({ Authorization: 'Bearer a:b' });
    expect(() => header(': nameless')).toThrow(InvalidArgumentError);
  });
});

describe('scheduleOf', () => {
  it('makes the API schedule of each kind', () => {
    expect(scheduleOf({ cron: '0 9 * * 1-5', tz: 'Europe/Berlin', maxRuns: 3 }, true)).toEqual({
      type: 'cron',
      expression: '0 9 * * 1-5',
      timezone: 'Europe/Berlin',
      maxRuns: 3,
    });
    expect(scheduleOf({ every: 300, startAt: '2036-01-01T00:00:00Z' }, true)).toEqual({
      type: 'interval',
      everySeconds: 300,
      startAt: '2036-01-01T00:00:00Z',
    });
    expect(scheduleOf({ at: 'now' }, true)).toEqual({ type: 'once' });
    expect(scheduleOf({}, false)).toBeUndefined();
  });

  it('refuses flags that cannot make one schedule (usage errors, exit 2)', () => {
    for (const flags of [
      {},
      { cron: '* * * * *', every: 60 },
      { tz: 'UTC', every: 60 },
      { at: 'now', maxRuns: 2 },
      { endAt: 'x' },
    ]) {
      expect(() => scheduleOf(flags, true), JSON.stringify(flags)).toThrow(UsageError);
    }
  });
});
