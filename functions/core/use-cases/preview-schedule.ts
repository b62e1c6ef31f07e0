/**
 * The occurrences a schedule would fire at (POST /v1/schedules/preview), before any job exists.
 * The schedule is read exactly as job creation reads it (parseSchedule, then refused when it has no
 * occurrence from now on, with the same fields and reasons), and its occurrences come from the
 * schedule code the scanner materializes runs with: time zones, daylight-saving time and `maxRuns`
 * behave here as they will for the job.
 */
import { isIntegerBetween } from '../bounds.ts';
import { type FieldProblem, ValidationError } from '../errors.ts';
import { requireFirstFireAt } from '../first-occurrence.ts';
import { isoInstantField, parseSchedule, type ScheduleSpec, upcoming } from '../schedule/index.ts';
import { countSlots } from '../schedule/occurrences.ts';

export const DEFAULT_PREVIEW_COUNT = 10;
export const MAX_PREVIEW_COUNT = 100;
/**
 * The most slots walked to learn how many runs `maxRuns` has used before `from` (a cron schedule
 * is walked one slot at a time, some 15 µs each): past it the answer would cost a request too much.
 */
export const MAX_SLOTS_COUNTED = 5_000;

export interface PreviewScheduleInput {
  schedule: unknown;
  count?: number;
  from?: string;
}

/**
 * The job's occurrences (epoch ms, ascending, at most `count`) at or after `from` (default: its
 * first), for a job created at `now` with this schedule. Throws ValidationError naming every field
 * that is wrong, as job creation does.
 */
export function previewSchedule(input: PreviewScheduleInput, now: number): number[] {
  const problems: FieldProblem[] = [];
  const parsed = parseSchedule(input.schedule, now);
  if (!parsed.ok) problems.push(...parsed.errors);
  const count = input.count ?? DEFAULT_PREVIEW_COUNT;
  if (!isIntegerBetween(count, 1, MAX_PREVIEW_COUNT)) {
    problems.push({ field: 'count', reason: `must be an integer from 1 to ${MAX_PREVIEW_COUNT}` });
  }
  const from =
    input.from === undefined
      ? undefined
      : isoInstantField(input.from, (reason) => problems.push({ field: 'from', reason }));
  if (problems.length > 0 || !parsed.ok) throw new ValidationError(problems);
  const first = requireFirstFireAt(parsed.schedule, now);
  return occurrencesOf(parsed.schedule, first, from ?? first, count);
}

/** The schedule's occurrences from `first` on (what the job fires), those at or after `from`. */
function occurrencesOf(schedule: ScheduleSpec, first: number, from: number, count: number): number[] {
  // A one-time job fires at `at` however late it is (fire-plan.ts): its only occurrence is `first`.
  if (schedule.type === 'once') return first >= from ? [first] : [];
  if (from <= first) return upcoming(schedule, first, 0, count);
  return upcoming(schedule, from, runsUsedBefore(schedule, first, from), count);
}

/** How many of `maxRuns` the job has used by `from` (0 without maxRuns: nothing to count). */
function runsUsedBefore(schedule: Exclude<ScheduleSpec, { type: 'once' }>, first: number, from: number): number {
  const { maxRuns } = schedule;
  if (maxRuns === undefined) return 0;
  const ceiling = Math.min(maxRuns, MAX_SLOTS_COUNTED);
  const used = countSlots(schedule, first, from - 1, ceiling);
  if (used >= ceiling && ceiling < maxRuns && schedule.type === 'cron') {
    throw new ValidationError([
      {
        field: 'from',
        reason: `is more than ${MAX_SLOTS_COUNTED} occurrences after the first, too far to count schedule.maxRuns`,
      },
    ]);
  }
  return used;
}
