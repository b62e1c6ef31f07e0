/**
 * The scanner: every due-index shard is queried in parallel for jobs due within the horizon, and
 * their occurrences are materialized page by page. Racing scanners are safe (see
 * materialize-occurrences.ts), so the scan needs no lock.
 */
import { allShards } from '../due-shard.ts';
import { type MaterializeDeps, type MaterializeResult, materializeOccurrences } from './materialize-occurrences.ts';

/** Due jobs read per page; also the batch the scanner materializes together. */
export const SCAN_PAGE_SIZE = 100;

/** One shard's pass: what the scanner's heartbeat records. */
export interface ShardPass {
  shard: string;
  jobsFound: number;
  runsCreated: number;
  /** How late the earliest due job found was (0 when none was past due). */
  lagMs: number;
  durationMs: number;
}

export interface ScanResult extends Omit<MaterializeResult, 'advanced'> {
  jobsFound: number;
  shards: number;
  perShard: ShardPass[];
}

/**
 * Scans every shard once at `now`, stopping a shard's loop when it has nothing due. `elapsedMs`
 * (ms since the scan began) times each shard's pass for the heartbeat.
 */
export async function scanDueJobs(
  deps: MaterializeDeps,
  now: number,
  elapsedMs: () => number = () => 0,
): Promise<ScanResult> {
  const until = now + deps.config.horizonMs;
  const perShard = await Promise.all(
    allShards(deps.config.shardCount).map(async (shard) => {
      const total = { jobsFound: 0, runsCreated: 0, messagesSent: 0, jobsAdvanced: 0, lagMs: 0 };
      // Advanced jobs leave the window, so re-querying from the start walks the whole shard.
      for (;;) {
        const due = await deps.jobs.findDue(shard, until, SCAN_PAGE_SIZE);
        if (due.length === 0) break;
        if (total.jobsFound === 0) total.lagMs = Math.max(0, now - (due[0]?.nextFireAt ?? now));
        const result = await materializeOccurrences(deps, due, now);
        total.jobsFound += due.length;
        total.runsCreated += result.runsCreated;
        total.messagesSent += result.messagesSent;
        total.jobsAdvanced += result.jobsAdvanced;
        // Nothing moved: every job here was advanced by someone else meanwhile, or cannot advance.
        if (result.jobsAdvanced === 0 || due.length < SCAN_PAGE_SIZE) break;
      }
      return { ...total, shard, durationMs: elapsedMs() };
    }),
  );
  return perShard.reduce<ScanResult>(
    (sum, s) => ({
      shards: sum.shards + 1,
      jobsFound: sum.jobsFound + s.jobsFound,
      runsCreated: sum.runsCreated + s.runsCreated,
      messagesSent: sum.messagesSent + s.messagesSent,
      jobsAdvanced: sum.jobsAdvanced + s.jobsAdvanced,
      perShard: [
        ...sum.perShard,
        {
          shard: s.shard,
          jobsFound: s.jobsFound,
          runsCreated: s.runsCreated,
          lagMs: s.lagMs,
          durationMs: s.durationMs,
        },
      ],
    }),
    { shards: 0, jobsFound: 0, runsCreated: 0, messagesSent: 0, jobsAdvanced: 0, perShard: [] },
  );
}
