/**
 * Interval occurrences are anchored: occurrence k is exactly `startAt + k * everySeconds * 1000`, never
 * derived from when the previous run happened, so latency and retries cannot make the schedule drift.
 * Everything here is arithmetic on k (O(1)) however far `from` is from `startAt`. No occurrence lies after
 * LATEST_INSTANT, so every instant returned, and every index, is a safe integer.
 */
import { LATEST_INSTANT } from '../bounds.ts';
import type { IntervalSchedule } from './types.ts';

/** Inclusive range of occurrence indices whose instants lie in [fromInclusive, untilInclusive], or undefined. */
export function intervalIndexRange(
  schedule: IntervalSchedule,
  fromInclusive: number,
  untilInclusive: number,
): { first: number; last: number } | undefined {
  const period = schedule.everySeconds * 1000;
  // A stored item is not re-validated: a period that is not a positive number has no occurrences.
  if (!(period > 0) || !Number.isFinite(period) || !Number.isFinite(schedule.startAt)) return undefined;
  const from = Math.max(fromInclusive, schedule.startAt);
  const until = Math.min(untilInclusive, schedule.endAt ?? LATEST_INSTANT, LATEST_INSTANT);
  if (from > until) return undefined;
  const first = firstIndexAtOrAfter(schedule.startAt, period, from);
  const last = firstIndexAtOrAfter(schedule.startAt, period, until + 1) - 1;
  return first <= last ? { first, last } : undefined;
}

/** The instant of occurrence `index`. */
export function intervalOccurrenceAt(schedule: IntervalSchedule, index: number): number {
  return schedule.startAt + index * schedule.everySeconds * 1000;
}

/** Smallest k >= 0 with startAt + k * period >= instant; the division is corrected for float rounding. */
function firstIndexAtOrAfter(startAt: number, period: number, instant: number): number {
  if (instant <= startAt) return 0;
  let index = Math.ceil((instant - startAt) / period);
  while (index > 0 && startAt + (index - 1) * period >= instant) index--;
  while (startAt + index * period < instant) index++;
  return index;
}
