/**
 * The scanner: every due-index shard is queried in parallel for jobs due within the horizon, and
 * their occurrences are materialized page by page. Racing scanners are safe (see
 * materialize-occurrences.ts), so the scan needs no lock.
 *
 * One shard never holds up the others: a shard whose pass fails (its query throws, its messages
 * cannot be sent) ends with the error in its own result, and every other shard finishes. Within
 * a shard, jobs are isolated from each other by materializeOccurrences.
 */
import { allShards } from '../due-shard.ts';
import { reasonOf } from './job-faults.ts';
import {
  type JobFault,
  type MaterializeDeps,
  type MaterializeResult,
  materializeOccurrences,
} from './materialize-occurrences.ts';

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
  /** Why the pass over this shard stopped short; absent when it finished. */
  error?: string;
}

export interface ScanResult extends Omit<MaterializeResult, 'advanced'> {
  jobsFound: number;
  shards: number;
  perShard: ShardPass[];
}

type ShardTotals = Omit<ScanResult, 'shards' | 'perShard'> & { lagMs: number };

/**
 * Scans every shard once at `now`, stopping a shard's loop when it has nothing due. `elapsedMs`
 * (ms since the scan began) times each shard's pass for the heartbeat. Never rejects for one
 * shard: a failed shard's pass carries its `error`, and so does one still going after `budgetMs`
 * (a hung request, a huge backlog), so that the pass ends with every shard's heartbeat in time
 * instead of being stopped with none; its work goes on in the background, safe to repeat.
 */
export async function scanDueJobs(
  deps: MaterializeDeps,
  now: number,
  elapsedMs: () => number = () => 0,
  budgetMs = Number.POSITIVE_INFINITY,
): Promise<ScanResult> {
  const perShard = await Promise.all(
    allShards(deps.config.shardCount).map(async (shard) => {
      const total: ShardTotals = {
        jobsFound: 0,
        runsCreated: 0,
        messagesSent: 0,
        jobsAdvanced: 0,
        lagMs: 0,
        quarantined: [],
        failed: [],
      };
      let error: string | undefined;
      try {
        await withinBudget(scanShard(deps, shard, now, total), budgetMs - elapsedMs());
      } catch (thrown) {
        error = reasonOf(thrown);
      }
      return { ...total, shard, durationMs: elapsedMs(), ...(error === undefined ? {} : { error }) };
    }),
  );
  return perShard.reduce<ScanResult>(
    (sum, s) => ({
      shards: sum.shards + 1,
      jobsFound: sum.jobsFound + s.jobsFound,
      runsCreated: sum.runsCreated + s.runsCreated,
      messagesSent: sum.messagesSent + s.messagesSent,
      jobsAdvanced: sum.jobsAdvanced + s.jobsAdvanced,
      quarantined: [...sum.quarantined, ...s.quarantined],
      failed: [...sum.failed, ...s.failed],
      perShard: [
        ...sum.perShard,
        {
          shard: s.shard,
          jobsFound: s.jobsFound,
          runsCreated: s.runsCreated,
          lagMs: s.lagMs,
          durationMs: s.durationMs,
          ...(s.error === undefined ? {} : { error: s.error }),
        },
      ],
    }),
    scanResultOf([]),
  );
}

/** A scan that found nothing, over the given shard passes: the start of every total. */
export function scanResultOf(perShard: ShardPass[]): ScanResult {
  return {
    shards: perShard.length,
    jobsFound: 0,
    runsCreated: 0,
    messagesSent: 0,
    jobsAdvanced: 0,
    quarantined: [],
    failed: [],
    perShard,
  };
}

/** Walks one shard, adding what it did to `total` as it goes (so a failure keeps what was done). */
async function scanShard(deps: MaterializeDeps, shard: string, now: number, total: ShardTotals): Promise<void> {
  const until = now + deps.config.horizonMs;
  // Advanced and quarantined jobs leave the window, so re-querying from the start walks the whole shard.
  for (;;) {
    const due = await deps.jobs.findDue(shard, until, SCAN_PAGE_SIZE);
    if (due.length === 0) break;
    if (total.jobsFound === 0) total.lagMs = Math.max(0, now - (due[0]?.nextFireAt ?? now));
    const result = await materializeOccurrences(deps, due, now);
    total.jobsFound += due.length;
    total.runsCreated += result.runsCreated;
    total.messagesSent += result.messagesSent;
    total.jobsAdvanced += result.jobsAdvanced;
    total.quarantined.push(...result.quarantined);
    total.failed.push(...withoutRepeats(total.failed, result.failed));
    // Nothing moved: every job here was advanced by someone else meanwhile, cannot advance, or failed.
    if (result.jobsAdvanced + result.quarantined.length === 0 || due.length < SCAN_PAGE_SIZE) break;
  }
}

/** The faults of jobs not reported yet (a job failing on every page of a shard is reported once). */
function withoutRepeats(reported: JobFault[], faults: JobFault[]): JobFault[] {
  return faults.filter((f) => !reported.some((r) => r.tenantId === f.tenantId && r.jobId === f.jobId));
}

/** Thrown for a shard whose pass outlasted the scan's budget. */
export class PassCutShortError extends Error {
  constructor(budgetMs: number) {
    super(`the pass over this shard was cut short after ${Math.round(budgetMs)} ms; the next pass goes on`);
    this.name = 'PassCutShortError';
  }
}

/** `work`, or a PassCutShortError once `budgetMs` has passed first. */
export async function withinBudget<T>(work: Promise<T>, budgetMs: number): Promise<T> {
  if (budgetMs === Number.POSITIVE_INFINITY) return work;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const cutShort = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PassCutShortError(budgetMs)), Math.max(0, budgetMs));
  });
  try {
    return await Promise.race([work, cutShort]);
  } finally {
    clearTimeout(timer);
  }
}
