/**
 * Spreads jobs over `count` due-index partitions so no single partition key takes every
 * write (one DynamoDB partition sustains ~1,000 writes/s). The shard is a pure function of the
 * job id, so it never changes for a job.
 */

/** FNV-1a, 32 bit: fast, stable across runtimes, and well spread for ULIDs. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Zero-padded shard name, e.g. `due#07`. */
export function shardName(index: number): string {
  return `due#${String(index).padStart(2, '0')}`;
}

/** The due-index shard a job lives in. */
export function dueShardOf(jobId: string, count: number): string {
  return shardName(fnv1a(jobId) % count);
}

/** Every shard name, for the scanner. */
export function allShards(count: number): string[] {
  return Array.from({ length: count }, (_, i) => shardName(i));
}
