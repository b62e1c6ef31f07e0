/**
 * A run's priority lane (issue #22): each lane has its own dispatch queue, dead-letter queue and
 * executor event source with its own maximum concurrency, so urgent runs are never stuck behind
 * bulk work. A job (or workflow task) without `priority` is `normal`; a run carries the priority of
 * its job as it was when the run was made (a PATCH applies to runs made after it).
 */
export const PRIORITIES = ['high', 'normal', 'low'] as const;

export type Priority = (typeof PRIORITIES)[number];

export const DEFAULT_PRIORITY: Priority = 'normal';

export function isPriority(value: unknown): value is Priority {
  return typeof value === 'string' && (PRIORITIES as readonly string[]).includes(value);
}

/** The lane of a stored job, run or message: absent is `normal`. */
export function laneOf(item: { priority?: Priority }): Priority {
  return item.priority ?? DEFAULT_PRIORITY;
}
