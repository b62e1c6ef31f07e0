/**
 * Catching up after an outage or a pause: what to fire for a job whose `nextFireAt` is in the past.
 *
 * The job's slots in [nextFireAt, now] fall in two groups:
 * - missed: earlier than `now - graceMs`. The policy decides what happens to them.
 * - due:    in [now - graceMs, now]. Only late by ordinary latency (a scanner tick, a queue); they always fire,
 *           whatever the policy, so a job created "now" is never "skipped" by the scanner that first sees it.
 * Policies on missed slots:
 * - fire_once (default): ONE run, scheduled for the LATEST missed slot. It is a function of the schedule and
 *   the window, never of the clock reading, so scanners racing on the same job derive the same run id.
 * - fire_all: every missed slot.
 * - skip: none.
 * `fire` never holds more than `cap` runs, nor more than maxRuns still allows. When slots must go, the OLDEST
 * go: after a long outage the recent slots carry the current intent, and an hourly report for 09:00 is worth
 * more than one for three days ago. Every slot in the window that is not fired is counted in `skipped`.
 * The returned `nextFireAt` is the first slot strictly after `now` (undefined once the schedule is exhausted).
 */
import { countSlots, latestSlots, runsLeft, slotsBetween } from './occurrences.ts';
import type { MisfirePolicy, ScheduleSpec } from './types.ts';

/**
 * Lateness that still counts as on time: one scanner tick. With 0, a job created with `at: now` would
 * already be "missed" when the scanner first sees it, and a `skip` job would never run.
 */
export const DEFAULT_MISFIRE_GRACE_MS = 60_000;

/** Most runs one catch-up may produce. */
export const DEFAULT_MISFIRE_CAP = 100;

/** Cron slots are enumerated to count them; beyond this many, `skipped` saturates (interval counts are exact). */
export const SKIPPED_COUNT_LIMIT = 10_000;

export interface MisfireResolution {
  /** Scheduled times to materialize as runs, ascending. */
  fire: number[];
  /** First slot strictly after `now`; undefined when nothing more can fire. */
  nextFireAt: number | undefined;
  /** Slots in [nextFireAt, now] that will never run. */
  skipped: number;
}

/** Resolves the slots in [nextFireAt, now] of a late job into runs to fire, a new nextFireAt and a skipped count. */
export function resolveMisfire(
  policy: MisfirePolicy,
  schedule: ScheduleSpec,
  nextFireAt: number,
  now: number,
  occurrencesSoFar: number,
  cap = DEFAULT_MISFIRE_CAP,
  graceMs = DEFAULT_MISFIRE_GRACE_MS,
): MisfireResolution {
  const keep = Math.max(0, Math.min(cap, runsLeft(schedule, occurrencesSoFar)));
  const dueFrom = Math.max(nextFireAt, now - graceMs);
  const missedUntil = dueFrom - 1;

  const missedCount = countSlots(schedule, nextFireAt, missedUntil, SKIPPED_COUNT_LIMIT);
  const dueCount = countSlots(schedule, dueFrom, now, SKIPPED_COUNT_LIMIT);
  const missedToFire =
    missedCount === 0 || policy === 'skip'
      ? []
      : latestSlots(schedule, nextFireAt, missedUntil, policy === 'fire_once' ? 1 : keep);
  const candidates = [...missedToFire, ...latestSlots(schedule, dueFrom, now, keep)];
  const fire = keep === 0 ? [] : candidates.slice(-keep);

  const exhausted = runsLeft(schedule, occurrencesSoFar + fire.length) === 0;
  return {
    fire,
    nextFireAt: exhausted
      ? undefined
      : slotsBetween(schedule, Math.max(nextFireAt, now + 1), Number.POSITIVE_INFINITY, 1)[0],
    skipped: Math.max(0, missedCount + dueCount - fire.length),
  };
}
