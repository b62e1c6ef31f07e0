import { describe, expect, it } from 'vitest';
import { ValidationError } from '#core/errors';
import { requireFirstFireAt } from '#core/first-occurrence';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const HOUR = 3_600_000;

function fieldsOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error.details;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('a schedule must have an occurrence from now on', () => {
  it('gives the first one: a past one-time job fires anyway, a recurring one from now on', () => {
    expect(requireFirstFireAt({ type: 'once', at: NOW - HOUR }, NOW)).toBe(NOW - HOUR);
    expect(requireFirstFireAt({ type: 'interval', everySeconds: 60, startAt: NOW - HOUR }, NOW)).toBe(NOW);
  });

  it('names schedule.endAt when the window is already over', () => {
    const over = { type: 'interval' as const, everySeconds: 60, startAt: NOW - 2 * HOUR, endAt: NOW - HOUR };
    const cron = {
      type: 'cron' as const,
      expression: '0 0 1 1 *',
      timezone: 'UTC',
      startAt: NOW - HOUR,
      endAt: NOW + HOUR,
    };

    expect(fieldsOf(() => requireFirstFireAt(over, NOW))).toEqual([
      { field: 'schedule.endAt', reason: 'has no occurrence from now on' },
    ]);
    expect(fieldsOf(() => requireFirstFireAt(cron, NOW))).toEqual([
      { field: 'schedule.endAt', reason: 'has no occurrence from now on' },
    ]);
  });
});
