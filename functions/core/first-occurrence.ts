/**
 * A job must have something to fire when it is created or rescheduled: a recurring schedule whose
 * window is already over would be stored ACTIVE with nothing ever to do. Refused with 400, naming
 * the field that rules every occurrence out.
 */
import { ValidationError } from './errors.ts';
import { firstFireAt } from './fire-plan.ts';
import type { ScheduleSpec } from './schedule/index.ts';

/** The schedule's first occurrence from `now` on; ValidationError when it has none. */
export function requireFirstFireAt(schedule: ScheduleSpec, now: number): number {
  const first = firstFireAt(schedule, now);
  if (first !== undefined) return first;
  throw new ValidationError([
    { field: fieldWithoutOccurrence(schedule, now), reason: 'has no occurrence from now on' },
  ]);
}

/** `schedule.endAt` when the window closing is what leaves nothing (the usual case), else `schedule`. */
function fieldWithoutOccurrence(schedule: ScheduleSpec, now: number): string {
  if (schedule.type === 'once' || schedule.endAt === undefined) return 'schedule';
  const { endAt: _closed, ...open } = schedule;
  return firstFireAt(open, now) === undefined ? 'schedule' : 'schedule.endAt';
}
