/**
 * When a job's schedule fires. The scanner and the create path ask only this module, so new
 * schedule types plug in here without touching materialization.
 */
import type { Schedule } from './model.ts';

/** Occurrences in [fromInclusive, untilInclusive], ascending, at most `limit`. */
export function occurrencesBetween(
  schedule: Schedule,
  fromInclusive: number,
  untilInclusive: number,
  occurrencesSoFar: number,
  limit: number,
): number[] {
  if (limit <= 0 || occurrencesSoFar > 0) return [];
  return schedule.at <= untilInclusive && schedule.at >= fromInclusive ? [schedule.at] : [];
}

/** The first occurrence at or after `fromInclusive`, undefined when nothing more fires. */
export function nextOccurrence(
  schedule: Schedule,
  fromInclusive: number,
  occurrencesSoFar: number,
): number | undefined {
  return occurrencesSoFar === 0 && schedule.at >= fromInclusive ? schedule.at : undefined;
}

/** The first occurrence of a new job. */
export function firstOccurrence(schedule: Schedule): number | undefined {
  return schedule.at;
}
