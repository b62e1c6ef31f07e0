import { describe, expect, it } from 'vitest';
import { ValidationError } from '#core/errors';
import { MAX_SLOTS_COUNTED, previewSchedule } from '#core/use-cases/preview-schedule';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const START = Date.parse('2030-01-01T00:00:00Z');

function detailsOf(fn: () => unknown) {
  try {
    fn();
  } catch (error) {
    if (error instanceof ValidationError) return error.details;
    throw error;
  }
  throw new Error('no ValidationError');
}

describe('previewSchedule', () => {
  it('counts maxRuns exactly for an interval however far from is', () => {
    // prepare: 1e8 runs a second apart; 5e7 of them lie before `from`
    const schedule = { type: 'interval', everySeconds: 1, startAt: '2030-01-01T00:00:00Z', maxRuns: 100_000_000 };
    const from = new Date(START + 99_999_998_000).toISOString();

    // act
    const occurrences = previewSchedule({ schedule, from, count: 5 }, NOW);

    // assess: only the last two of the 1e8 runs are left
    expect(occurrences).toEqual([START + 99_999_998_000, START + 99_999_999_000]);
  });

  it('refuses to walk more than its budget of cron slots to count maxRuns, naming from', () => {
    const schedule = { type: 'cron', expression: '* * * * *', startAt: '2030-01-01T00:00:00Z', maxRuns: 1_000_000 };
    const from = new Date(START + (MAX_SLOTS_COUNTED + 5) * 60_000).toISOString();

    expect(detailsOf(() => previewSchedule({ schedule, from }, NOW))).toEqual([
      { field: 'from', reason: expect.stringContaining('too far to count schedule.maxRuns') },
    ]);
    // Within the budget the count is exact: 10 runs used before from, 2 left.
    const near = new Date(START + 10 * 60_000).toISOString();
    expect(previewSchedule({ schedule: { ...schedule, maxRuns: 12 }, from: near }, NOW)).toEqual([
      START + 10 * 60_000,
      START + 11 * 60_000,
    ]);
  });

  it('lists every problem at once: the schedule’s, count’s and from’s', () => {
    const details = detailsOf(() =>
      previewSchedule({ schedule: { type: 'cron', expression: 'x' }, count: 1000, from: 'soon' }, NOW),
    );

    expect(details.map((d) => d.field)).toEqual(['schedule.expression', 'count', 'from']);
  });
});
