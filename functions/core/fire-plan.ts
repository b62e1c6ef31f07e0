/**
 * What one materialization pass does with one due job: which occurrences become runs now, and
 * where the job's `nextFireAt` moves to. Occurrences within the horizon are all materialized at
 * once (each gets its own SQS delay), so sub-minute schedules fire at the right second.
 *
 * A recurring job whose `nextFireAt` is older than the misfire grace was not served in time (an
 * outage, a pause): its misfire policy decides what the missed occurrences become. A one-time job
 * always fires, however late — it was asked for once and has no later occurrence to wait for.
 */
import type { DueJob } from './ports.ts';
import { DEFAULT_MISFIRE_GRACE_MS, nextOccurrence, occurrencesBetween, resolveMisfire } from './schedule/index.ts';

/** Upper bound of occurrences one job materializes per pass, so one job cannot starve a scan. */
export const MAX_OCCURRENCES_PER_PASS = 1_000;

export interface FirePlan {
  /** Scheduled times to materialize as runs, ascending. */
  occurrences: number[];
  /** Where the job moves to; undefined when nothing more can fire. */
  nextFireAt: number | undefined;
  /** Missed occurrences the misfire policy dropped. */
  skipped: number;
}

/**
 * The job's own data makes a plan that cannot be carried out (an instant no later stage can
 * represent or store, or a schedule the planner cannot read). Deterministic: the same job fails
 * the same way on every pass, so the scanner quarantines it instead of trying again.
 */
export class UnplannableJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnplannableJobError';
  }
}

/** The latest instant JS `Date` can hold (±8.64e15 ms), inside the safe-integer range DynamoDB numbers round-trip through. */
const LATEST_DATE_MS = 8_640_000_000_000_000;

/** An epoch-ms instant every later stage can represent, store and format (a safe integer inside the `Date` range). */
export function isRepresentableInstant(ms: number): boolean {
  return Number.isSafeInteger(ms) && Math.abs(ms) <= LATEST_DATE_MS;
}

/**
 * Plans one pass over `job` at `now`, materializing up to `until` (now + horizon). Throws
 * UnplannableJobError when the plan holds an instant that cannot be represented or stored.
 */
export function planFiring(job: DueJob, now: number, until: number): FirePlan {
  const plan = computePlan(job, now, until);
  const bad = [...plan.occurrences, ...(plan.nextFireAt === undefined ? [] : [plan.nextFireAt])].find(
    (at) => !isRepresentableInstant(at),
  );
  if (bad !== undefined) {
    throw new UnplannableJobError(
      `the schedule's next slot (${bad} ms since the epoch) is not a representable instant`,
    );
  }
  return plan;
}

function computePlan(job: DueJob, now: number, until: number): FirePlan {
  const { schedule, nextFireAt, occurrenceCount } = job;
  let missed: number[] = [];
  let skipped = 0;
  let from = nextFireAt;
  if (schedule.type !== 'once' && nextFireAt < now - DEFAULT_MISFIRE_GRACE_MS) {
    const resolution = resolveMisfire(job.policies?.misfire ?? 'fire_once', schedule, nextFireAt, now, occurrenceCount);
    missed = resolution.fire;
    skipped = resolution.skipped;
    from = now + 1;
  }
  const upcoming = occurrencesBetween(
    schedule,
    from,
    until,
    occurrenceCount + missed.length,
    MAX_OCCURRENCES_PER_PASS - missed.length,
  );
  const occurrences = [...missed, ...upcoming];
  const last = occurrences.at(-1);
  const resumeFrom = Math.max(from, last === undefined ? from : last + 1);
  return {
    occurrences,
    nextFireAt: nextOccurrence(schedule, resumeFrom, occurrenceCount + occurrences.length),
    skipped,
  };
}

/** A new job's first occurrence: a one-time job's `at` (even if past), else the first slot from now on. */
export function firstFireAt(schedule: DueJob['schedule'], now: number): number | undefined {
  if (schedule.type === 'once') return schedule.at;
  return nextOccurrence(schedule, Math.max(schedule.startAt, now), 0);
}
