/**
 * When a schedule fires. Windows are inclusive at both ends; times are integer epoch milliseconds.
 * `occurrencesSoFar` counts occurrences already materialized as runs: `maxRuns` caps runs, not slots, so
 * occurrences skipped by a misfire policy do not use up a job's runs.
 * No schedule has an occurrence after LATEST_INSTANT (bounds.ts): past it a schedule simply ends, so a job
 * stored with extreme values ends instead of yielding an instant no later stage can store.
 */
import { LATEST_INSTANT } from '../bounds.ts';
import { compileCron } from './cron-expression.ts';
import { cronOccurrencesFrom } from './cron-occurrences.ts';
import { intervalIndexRange, intervalOccurrenceAt } from './interval-occurrences.ts';
import type { CronSchedule, ScheduleSpec } from './types.ts';

/** How many more runs the schedule allows after `occurrencesSoFar` (Infinity when unbounded). */
export function runsLeft(schedule: ScheduleSpec, occurrencesSoFar: number): number {
  const maxRuns = schedule.type === 'once' ? 1 : (schedule.maxRuns ?? Number.POSITIVE_INFINITY);
  return Math.max(0, maxRuns - occurrencesSoFar);
}

/** Every occurrence in [fromInclusive, untilInclusive], ascending, honoring startAt/endAt and maxRuns, at most `limit`. */
export function occurrencesBetween(
  schedule: ScheduleSpec,
  fromInclusive: number,
  untilInclusive: number,
  occurrencesSoFar: number,
  limit: number,
): number[] {
  return slotsBetween(schedule, fromInclusive, untilInclusive, Math.min(limit, runsLeft(schedule, occurrencesSoFar)));
}

/** The first occurrence at or after `fromInclusive`; undefined when the schedule is exhausted. */
export function nextOccurrence(
  schedule: ScheduleSpec,
  fromInclusive: number,
  occurrencesSoFar: number,
): number | undefined {
  return occurrencesBetween(schedule, fromInclusive, Number.POSITIVE_INFINITY, occurrencesSoFar, 1)[0];
}

/** The next `n` occurrences at or after `fromInclusive` (fewer when the schedule runs out). */
export function upcoming(schedule: ScheduleSpec, fromInclusive: number, occurrencesSoFar: number, n: number): number[] {
  return occurrencesBetween(schedule, fromInclusive, Number.POSITIVE_INFINITY, occurrencesSoFar, n);
}

/**
 * The schedule's slots in [fromInclusive, untilInclusive], ascending, at most `limit`, ignoring maxRuns:
 * the times the schedule names, whether or not they will be run. `limit` or the window must be finite.
 */
export function slotsBetween(
  schedule: ScheduleSpec,
  fromInclusive: number,
  untilInclusive: number,
  limit: number,
): number[] {
  if (limit <= 0 || fromInclusive > untilInclusive) return [];
  const end = schedule.type === 'once' ? schedule.at : Math.min(untilInclusive, schedule.endAt ?? untilInclusive);
  if (!Number.isFinite(limit) && !Number.isFinite(end)) {
    throw new RangeError('an unbounded window needs a finite limit');
  }
  switch (schedule.type) {
    case 'once':
      return fromInclusive <= schedule.at && schedule.at <= Math.min(untilInclusive, LATEST_INSTANT)
        ? [schedule.at]
        : [];
    case 'interval': {
      const range = intervalIndexRange(schedule, fromInclusive, untilInclusive);
      if (!range) return [];
      const count = Math.min(limit, range.last - range.first + 1);
      return Array.from({ length: count }, (_, offset) => intervalOccurrenceAt(schedule, range.first + offset));
    }
    case 'cron':
      return takeCron(schedule, fromInclusive, untilInclusive, limit);
  }
}

/** How many slots lie in [fromInclusive, untilInclusive]: exact for once and interval; cron counting stops at `cronCeiling`. */
export function countSlots(
  schedule: ScheduleSpec,
  fromInclusive: number,
  untilInclusive: number,
  cronCeiling: number,
): number {
  if (schedule.type !== 'interval') return slotsBetween(schedule, fromInclusive, untilInclusive, cronCeiling).length;
  const range = intervalIndexRange(schedule, fromInclusive, untilInclusive);
  return range ? range.last - range.first + 1 : 0;
}

/** The last `k` slots in [fromInclusive, untilInclusive] (a finite bound), ascending. */
export function latestSlots(
  schedule: ScheduleSpec,
  fromInclusive: number,
  untilInclusive: number,
  k: number,
): number[] {
  if (!Number.isFinite(untilInclusive)) throw new RangeError('latestSlots needs a finite untilInclusive');
  if (k <= 0 || fromInclusive > untilInclusive) return [];
  switch (schedule.type) {
    case 'once':
      return slotsBetween(schedule, fromInclusive, untilInclusive, 1);
    case 'interval': {
      const range = intervalIndexRange(schedule, fromInclusive, untilInclusive);
      if (!range) return [];
      const first = Math.max(range.first, range.last - k + 1);
      return Array.from({ length: range.last - first + 1 }, (_, offset) =>
        intervalOccurrenceAt(schedule, first + offset),
      );
    }
    case 'cron':
      // Cron can only be walked forwards: widen a window back from `untilInclusive` until it holds k slots.
      for (let width = 60_000; ; width *= 2) {
        const windowStart = Math.max(fromInclusive, untilInclusive - width + 1);
        const found = takeCron(schedule, windowStart, untilInclusive, Number.POSITIVE_INFINITY);
        if (found.length >= k || windowStart === fromInclusive) return found.slice(-k);
      }
  }
}

function takeCron(schedule: CronSchedule, fromInclusive: number, untilInclusive: number, limit: number): number[] {
  const from = Math.max(fromInclusive, schedule.startAt);
  const until = Math.min(untilInclusive, schedule.endAt ?? LATEST_INSTANT, LATEST_INSTANT);
  const found: number[] = [];
  const compiled = compileCron(schedule.expression);
  if (!compiled.ok || from > until) return found;
  for (const instant of cronOccurrencesFrom(compiled.expression, compiled.everyHour, schedule.timezone, from)) {
    if (instant > until || found.length >= limit) break;
    found.push(instant);
  }
  return found;
}
