/**
 * Runs due but not yet started, counted without reading the runs: a run entering QUEUED adds one
 * `in` to its tenant's bucket of its due minute, leaving QUEUED (claimed, cancelled, skipped,
 * dead-lettered, or deleted while queued) adds one `out` to that same bucket. At any moment, the
 * buckets up to the current minute then hold, as `in − out`, the queued runs that are due by the
 * end of it.
 */
import type { Run } from '../model.ts';
import { dueAtOf } from '../run-timing.ts';
import { minuteOf } from './run-sample.ts';

export interface QueueShift {
  tenantId: string;
  /** Start of the run's due minute (max(scheduledFor, availableAt)). */
  minute: number;
  direction: 'in' | 'out';
}

export type QueuedView = Pick<Run, 'tenantId' | 'status' | 'scheduledFor' | 'availableAt'>;

/** What a change of one run item (`before` → `after`; absent: no item) does to the queued counters. */
export function queueShiftsOf(before: QueuedView | undefined, after: QueuedView | undefined): QueueShift[] {
  const wasQueued = before?.status === 'QUEUED' ? before : undefined;
  const isQueued = after?.status === 'QUEUED' ? after : undefined;
  const shift = (run: QueuedView, direction: QueueShift['direction']): QueueShift => ({
    tenantId: run.tenantId,
    minute: minuteOf(dueAtOf(run)),
    direction,
  });
  if (wasQueued && isQueued) {
    // Still queued: only a new due minute moves it (out of the old bucket, into the new one).
    const moved = minuteOf(dueAtOf(wasQueued)) !== minuteOf(dueAtOf(isQueued));
    return moved ? [shift(wasQueued, 'out'), shift(isQueued, 'in')] : [];
  }
  if (wasQueued) return [shift(wasQueued, 'out')];
  if (isQueued) return [shift(isQueued, 'in')];
  return [];
}
