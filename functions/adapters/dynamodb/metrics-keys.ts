/** Item keys and attribute names of the metrics table (METRICS_TABLE in table-definitions.ts). */
import { LAG_BUCKET_COUNT } from '#core/metrics/lag-histogram';

/** A minute bucket of runs: `runs#<tenant or *>` / `<minute, 13 digits>`. */
export function bucketKey(scope: string, minute: number): { pk: string; sk: string } {
  return { pk: `runs#${scope}`, sk: String(minute).padStart(13, '0') };
}

/**
 * The marker of one stream delivery that was counted, keyed by its first record (the batch id):
 * one small item per batch, holding the position of the last record counted. Keys spread over
 * partitions as the record ids do.
 */
export function batchMarkerKey(batchId: string): { pk: string; sk: string } {
  return { pk: `batch#${batchId}`, sk: 'counted' };
}

/** The marker's attribute: the stream position of the last record counted. */
export const MARKER_LAST_COUNTED = 'lastCounted';

/** A scope's job-status counters: one item, one number attribute per status. */
export function jobCountsKey(scope: string): { pk: string; sk: string } {
  return { pk: `jobs#${scope}`, sk: 'status' };
}

export const HEARTBEAT_PK = 'heartbeat#scanner';

/** Attribute names inside a bucket item: counts by status, retried, SLA misses, heartbeat timeouts, histogram cells, queued in/out. */
export const BUCKET_ATTRIBUTES = {
  status: (status: string) => `c_${status}`,
  retried: 'retried',
  slaMissed: 'slaMissed',
  heartbeatTimeouts: 'heartbeatTimeouts',
  queuedIn: 'queuedIn',
  queuedOut: 'queuedOut',
  startLag: (i: number) => `l${i}`,
  duration: (i: number) => `d${i}`,
};

export const HISTOGRAM_CELLS = Array.from({ length: LAG_BUCKET_COUNT }, (_, i) => i);

/**
 * Buckets live past the longest window (24 h) after their minute (a due minute can be days ahead,
 * a parked retry's: its bucket lives 3 days past that); markers past the longest stream retry
 * (24 h retention).
 */
export const BUCKET_TTL_SECONDS = 3 * 24 * 3600;
export const MARKER_TTL_SECONDS = 2 * 24 * 3600;

/**
 * A scanner page's dispatch intent (core/runs/dispatch-intent.ts): `intent#<due shard>` /
 * `<sweepAt, 13 digits>#<id>`, so the sweep reads a shard's abandoned intents, oldest first, with
 * one Query. No TTL: an intent that never clears keeps being swept, and shows in the scanner's log.
 */
export function dispatchIntentKey(intent: { shard: string; sweepAt: number; id: string }): { pk: string; sk: string } {
  return { pk: `intent#${intent.shard}`, sk: `${String(intent.sweepAt).padStart(13, '0')}#${intent.id}` };
}
