/** A tenant's (or all tenants') counters for one minute, as the stats endpoint reads them back. */
import type { TerminalRunStatus } from '../run-state.ts';
import type { Histogram } from './lag-histogram.ts';

export interface MinuteBucket {
  minute: number;
  counts: Partial<Record<TerminalRunStatus, number>>;
  retried: number;
  slaMissed: number;
  startLag: Histogram;
  duration: Histogram;
}
