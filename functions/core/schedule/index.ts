/** Public API of the schedule core: parsing, occurrence arithmetic, misfire and overlap policies. */
export { compileCron } from './cron-expression.ts';
export { isoInstantField, parseIsoInstant } from './iso-instant.ts';
export {
  DEFAULT_MISFIRE_CAP,
  DEFAULT_MISFIRE_GRACE_MS,
  type MisfireResolution,
  resolveMisfire,
  SKIPPED_COUNT_LIMIT,
} from './misfire.ts';
export { nextOccurrence, occurrencesBetween, runsLeft, upcoming } from './occurrences.ts';
export { decideOverlap, type OverlapDecision } from './overlap.ts';
export { type ParseScheduleResult, parseSchedule } from './parse-schedule.ts';
export { canonicalTimeZone } from './time-zone.ts';
export {
  type CronSchedule,
  type FieldError,
  type IntervalSchedule,
  MISFIRE_POLICIES,
  type MisfirePolicy,
  OVERLAP_POLICIES,
  type OverlapPolicy,
  type ScheduleSpec,
  type ScheduleType,
} from './types.ts';
