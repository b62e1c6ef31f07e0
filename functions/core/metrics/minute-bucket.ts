/**
 * A tenant's (or all tenants') counters for one minute, as the stats endpoint reads them back: runs
 * that finished in it, and runs due in it that entered and left QUEUED.
 */
import type { TerminalRunStatus } from '../run-state.ts';
import type { Histogram } from './lag-histogram.ts';

export interface MinuteBucket {
  minute: number;
  counts: Partial<Record<TerminalRunStatus, number>>;
  retried: number;
  slaMissed: number;
  /** Async runs that ended TIMED_OUT for a missed heartbeat (also counted under TIMED_OUT). */
  heartbeatTimeouts: number;
  startLag: Histogram;
  duration: Histogram;
  /** Runs due in this minute that entered QUEUED, and that left it (queue-shift.ts). */
  queuedIn: number;
  queuedOut: number;
}
