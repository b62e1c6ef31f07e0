/**
 * Schedule types. Times are epoch milliseconds; the API boundary speaks ISO-8601 (see parse-schedule.ts).
 */

export type ScheduleSpec =
  | { type: 'once'; at: number }
  | { type: 'interval'; everySeconds: number; startAt: number; endAt?: number; maxRuns?: number }
  | { type: 'cron'; expression: string; timezone: string; startAt: number; endAt?: number; maxRuns?: number };

export type ScheduleType = ScheduleSpec['type'];
export type IntervalSchedule = Extract<ScheduleSpec, { type: 'interval' }>;
export type CronSchedule = Extract<ScheduleSpec, { type: 'cron' }>;

/** What to do with occurrences that fell due while nothing was firing (an outage or a pause). */
export type MisfirePolicy = 'fire_once' | 'fire_all' | 'skip';
export const MISFIRE_POLICIES = ['fire_once', 'fire_all', 'skip'] as const satisfies readonly MisfirePolicy[];

/** Whether an occurrence may start while the previous run of the same job is still in flight. */
export type OverlapPolicy = 'allow' | 'forbid';
export const OVERLAP_POLICIES = ['allow', 'forbid'] as const satisfies readonly OverlapPolicy[];

/** One reason an input was rejected; `field` is a dotted path such as `schedule.expression`. */
export interface FieldError {
  field: string;
  reason: string;
}
