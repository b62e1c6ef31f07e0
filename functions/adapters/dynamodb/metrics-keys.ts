/** Item keys and attribute names of the metrics table (METRICS_TABLE in table-definitions.ts). */
import { LAG_BUCKET_COUNT } from '#core/metrics/lag-histogram';

/** A minute bucket of runs: `runs#<tenant or *>` / `<minute, 13 digits>`. */
export function bucketKey(scope: string, minute: number): { pk: string; sk: string } {
  return { pk: `runs#${scope}`, sk: String(minute).padStart(13, '0') };
}

/** The marker that says a run was counted: one small item per run id, so partitions spread. */
export function countedKey(runId: string): { pk: string; sk: string } {
  return { pk: `counted#${runId}`, sk: 'run' };
}

/** A scope's job-status counters: one item, one number attribute per status. */
export function jobCountsKey(scope: string): { pk: string; sk: string } {
  return { pk: `jobs#${scope}`, sk: 'status' };
}

export const HEARTBEAT_PK = 'heartbeat#scanner';

/** Attribute names inside a bucket item: counts by status, retried, SLA misses, histogram cells. */
export const BUCKET_ATTRIBUTES = {
  status: (status: string) => `c_${status}`,
  retried: 'retried',
  slaMissed: 'slaMissed',
  startLag: (i: number) => `l${i}`,
  duration: (i: number) => `d${i}`,
};

export const HISTOGRAM_CELLS = Array.from({ length: LAG_BUCKET_COUNT }, (_, i) => i);

/** Buckets live past the longest window (24 h); markers past the longest stream retry (24 h retention). */
export const BUCKET_TTL_SECONDS = 3 * 24 * 3600;
export const MARKER_TTL_SECONDS = 2 * 24 * 3600;
