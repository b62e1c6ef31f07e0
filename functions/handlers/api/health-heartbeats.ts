/**
 * What the scanner's heartbeats say about its health. The scanner writes one heartbeat per shard
 * every pass, a failed shard's with its error, so a failing shard is named rather than the whole
 * scanner going silent: `stale` (or `missing`) means no pass finished at all lately; `failing`
 * means passes finish but some shard's latest one failed.
 */
import type { ShardHeartbeat } from '#core/metrics/ports';
import type { CheckState } from './health-checks.ts';

export interface HeartbeatState {
  state: Extract<CheckState, 'ok' | 'missing' | 'stale' | 'failing'>;
  /** Shards whose latest pass (within `maxAgeMs`) failed, in shard order. */
  failingShards: string[];
}

/**
 * Judges the heartbeats at `now`. Only recent heartbeats can fail a shard: a shard that no longer
 * exists (fewer shards configured) keeps its last heartbeat, which then only ages.
 */
export function heartbeatStateOf(beats: ShardHeartbeat[], now: number, maxAgeMs: number): HeartbeatState {
  const newest = Math.max(0, ...beats.map((beat) => beat.at));
  if (newest === 0) return { state: 'missing', failingShards: [] };
  if (now - newest > maxAgeMs) return { state: 'stale', failingShards: [] };
  const failingShards = beats
    .filter((beat) => beat.error !== undefined && now - beat.at <= maxAgeMs)
    .map((beat) => beat.shard)
    .sort();
  return { state: failingShards.length > 0 ? 'failing' : 'ok', failingShards };
}
