/**
 * The run history's time range as typed and as sent: the end of a range typed to the minute covers
 * that whole minute, seconds in a shared URL survive the round trip through the inputs.
 */
import { describe, expect, it } from 'vitest';
import { fromLocalInput, toLocalInput } from '../src/components/job-detail/range-input.ts';

describe('run history range', () => {
  it('makes the end of a range given to the minute cover the whole minute', () => {
    const start = fromLocalInput('2026-11-24T10:05');
    const end = fromLocalInput('2026-11-24T10:05', 'end');
    expect(Date.parse(end as string) - Date.parse(start as string)).toBe(59_999);
    // Given to the second, it is that second.
    expect(fromLocalInput('2026-11-24T10:05:30', 'end')).toBe(fromLocalInput('2026-11-24T10:05:30'));
  });

  it('keeps the seconds of an instant from the URL when it fills the inputs', () => {
    const iso = new Date(2026, 10, 24, 10, 5, 42).toISOString();
    expect(toLocalInput(iso)).toBe('2026-11-24T10:05:42');
    expect(fromLocalInput(toLocalInput(iso))).toBe(iso);
  });

  it('reads nothing from an empty or invalid value', () => {
    expect(fromLocalInput('')).toBeUndefined();
    expect(fromLocalInput('not a date')).toBeUndefined();
    expect(toLocalInput('nonsense')).toBe('');
  });
});
