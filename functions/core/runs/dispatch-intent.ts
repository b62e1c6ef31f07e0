/**
 * A scanner pass's dispatch intent: one small record per page of due jobs, written before the
 * page's runs are put and removed once their messages are sent. It replaces, for the runs a scan
 * writes, each run's own sweep-index entry (two write units per run: in at the put, out at the
 * claim) with two writes per page — for a page of 100 one-time jobs, about 0.06 write units per
 * run.
 *
 * An intent still there at its `sweepAt` means the page's send never happened (the scanner died
 * between its puts and its send, or SQS refused the send) or its removal failed: the sweep then
 * sends every run of the intent's jobs in its time range that is still QUEUED
 * (use-cases/sweep-intents.ts). That holds whatever happened to the jobs meanwhile — a later pass
 * that planned another window (misfire), a pause, a PATCH or a cancel — because the intent names
 * the runs, not the job's state. Sending a run whose message did go out only costs a duplicate
 * message: the claim is conditional.
 */
import { dueShardOf } from '../due-shard.ts';
import type { Run } from '../model.ts';

export interface DispatchIntent {
  /** The due-index shard of the page's jobs: intents are swept per shard, like runs. */
  shard: string;
  /** Unique within the shard; with `sweepAt` it keys the record. */
  id: string;
  /** When the sweep may treat the intent as abandoned: its writing plus the sweep grace. */
  sweepAt: number;
  /** The jobs whose runs the page puts, as `<tenantId>#<jobId>` (neither may contain `#`). */
  jobs: string[];
  /** Earliest and latest `scheduledFor` of the page's runs. */
  from: number;
  until: number;
}

/** Where intents are kept (the metrics table; adapters/dynamodb/dispatch-intent-store.ts). */
export interface DispatchIntents {
  record(intent: DispatchIntent): Promise<void>;
  /** Removes a recorded intent; removing one already gone is not an error. */
  clear(intent: Pick<DispatchIntent, 'shard' | 'id' | 'sweepAt'>): Promise<void>;
  /** Intents of one shard whose `sweepAt` is at or before `until`, oldest first. */
  findDue(shard: string, until: number, limit: number): Promise<DispatchIntent[]>;
}

/**
 * The intent covering `runs` (at least one), written at `now`. `id` tells apart two intents of
 * the same shard written in the same millisecond (racing scanners).
 */
export function intentOf(
  runs: ReadonlyArray<Pick<Run, 'tenantId' | 'jobId' | 'scheduledFor'>>,
  now: number,
  config: { shardCount: number; sweepGraceMs: number },
  id: string,
): DispatchIntent {
  const first = runs[0];
  if (!first) throw new RangeError('an intent covers at least one run');
  let from = first.scheduledFor;
  let until = first.scheduledFor;
  // Not Math.min(...): a page can hold 100,000 runs, more arguments than a call takes.
  for (const run of runs) {
    from = Math.min(from, run.scheduledFor);
    until = Math.max(until, run.scheduledFor);
  }
  return {
    shard: dueShardOf(first.jobId, config.shardCount),
    id,
    sweepAt: now + config.sweepGraceMs,
    jobs: [...new Set(runs.map((run) => `${run.tenantId}#${run.jobId}`))],
    from,
    until,
  };
}

/** The job keys of an intent, back as ids. */
export function jobsOf(intent: Pick<DispatchIntent, 'jobs'>): Array<{ tenantId: string; jobId: string }> {
  return intent.jobs.map((key) => {
    const at = key.indexOf('#');
    return { tenantId: key.slice(0, at), jobId: key.slice(at + 1) };
  });
}
