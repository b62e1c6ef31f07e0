/**
 * Properties of the API's schedule input over the whole bounded domain: a schedule shown by the
 * API (scheduleView) is read back as the same schedule, every value just outside a bound is refused
 * naming its field, and no input at all makes parseSchedule throw.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EARLIEST_INSTANT, LATEST_INSTANT, MAX_EVERY_SECONDS, MAX_RUNS } from '#core/bounds';
import { nextOccurrence } from '#core/schedule/occurrences';
import { parseSchedule } from '#core/schedule/parse-schedule';
import { scheduleView } from '#core/views';
import { anySchedule, storedInstant } from './arbitraries.ts';

const NOW = Date.parse('2026-06-01T12:00:00Z');

/** Instants just outside the range, as ISO text. */
const outsideIso = fc
  .oneof(
    fc.integer({ min: EARLIEST_INSTANT - 366 * 86_400_000, max: EARLIEST_INSTANT - 1 }),
    fc.integer({ min: LATEST_INSTANT + 1, max: LATEST_INSTANT + 366 * 86_400_000 }),
  )
  .map((ms) => new Date(ms).toISOString());

/** Numbers a JSON body can hold that are no valid everySeconds or maxRuns. */
const badCount = (max: number) =>
  fc.oneof(
    fc.constantFrom(0, -1, max + 1, 0.5, 1.5, Number.MAX_SAFE_INTEGER + 1, 1e21, -1e21, Number.MAX_VALUE),
    fc.integer({ min: max + 1, max: Number.MAX_SAFE_INTEGER }),
    fc.integer({ min: Number.MIN_SAFE_INTEGER, max: 0 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Number.isInteger(x)),
  );

describe('schedule input over the whole bounded domain', () => {
  it('reads back every schedule the API shows as the same schedule', () => {
    fc.assert(
      fc.property(anySchedule, (schedule) => {
        const parsed = parseSchedule(scheduleView(schedule), NOW);
        if (parsed.ok) {
          expect(parsed.schedule).toEqual(schedule);
          return;
        }
        // Only a cron schedule with no occurrence in its window is refused, and then for that reason.
        expect(schedule.type).toBe('cron');
        expect(nextOccurrence(schedule, schedule.type === 'once' ? schedule.at : schedule.startAt, 0)).toBeUndefined();
        expect(parsed.errors.map((error) => error.field)).toEqual(['schedule.expression']);
      }),
      { numRuns: 600 },
    );
  });

  it('refuses an instant outside 1970 … 2199 in any date field, naming that field', () => {
    const field = fc.constantFrom(
      ['once', 'at'],
      ['interval', 'startAt'],
      ['interval', 'endAt'],
      ['cron', 'startAt'],
      ['cron', 'endAt'],
    );
    fc.assert(
      fc.property(field, outsideIso, storedInstant, ([type, name], outside, inside) => {
        const base =
          type === 'once'
            ? { type }
            : type === 'interval'
              ? { type, everySeconds: 60, startAt: new Date(inside).toISOString() }
              : { type, expression: '* * * * *', startAt: new Date(inside).toISOString() };
        const parsed = parseSchedule({ ...base, [name]: outside }, NOW);
        expect(parsed.ok).toBe(false);
        if (!parsed.ok) expect(parsed.errors.map((error) => error.field)).toContain(`schedule.${name}`);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses an everySeconds or maxRuns outside its bound, naming it, and accepts both limits', () => {
    fc.assert(
      fc.property(badCount(MAX_EVERY_SECONDS), badCount(MAX_RUNS), (every, runs) => {
        const tooFast = parseSchedule({ type: 'interval', everySeconds: every }, NOW);
        const tooMany = parseSchedule({ type: 'interval', everySeconds: 60, maxRuns: runs }, NOW);
        expect(tooFast.ok ? [] : tooFast.errors.map((error) => error.field)).toEqual(['schedule.everySeconds']);
        expect(tooMany.ok ? [] : tooMany.errors.map((error) => error.field)).toEqual(['schedule.maxRuns']);
      }),
      { numRuns: 500 },
    );
    const limits = parseSchedule({ type: 'interval', everySeconds: MAX_EVERY_SECONDS, maxRuns: MAX_RUNS }, NOW);
    expect(limits).toMatchObject({ ok: true, schedule: { everySeconds: MAX_EVERY_SECONDS, maxRuns: MAX_RUNS } });
  });

  it('never throws, whatever JSON arrives as a schedule, and names only schedule fields when it refuses', () => {
    const fieldValue = fc.oneof(
      fc.jsonValue(),
      fc.string({ unit: 'binary' }),
      storedInstant.map((ms) => new Date(ms).toISOString()),
    );
    const objects = fc
      .tuple(
        fc.constantFrom('once', 'interval', 'cron', 'nope', 7),
        fc.dictionary(
          fc.constantFrom(
            'at',
            'startAt',
            'endAt',
            'everySeconds',
            'maxRuns',
            'expression',
            'timezone',
            'extra',
            '__proto__',
          ),
          fieldValue,
        ),
      )
      .map(([type, fields]) => ({ ...fields, type }));
    fc.assert(
      fc.property(fc.oneof(objects, fc.jsonValue()), (input) => {
        const parsed = parseSchedule(input, NOW);
        if (parsed.ok) return;
        expect(parsed.errors.length).toBeGreaterThan(0);
        for (const error of parsed.errors) expect(error.field).toMatch(/^schedule(\.|$)/);
      }),
      { numRuns: 800 },
    );
  });
});
