/**
 * What monitoring needs from storage: run aggregates (per-tenant minute buckets), job-status
 * counters and the scanner's heartbeats. The DynamoDB metrics table implements them all.
 */
import type { JobStatus } from '../model.ts';
import type { MinuteBucket } from './minute-bucket.ts';
import type { QueueShift } from './queue-shift.ts';
import type { RunSample } from './run-sample.ts';

/** The scope that aggregates every tenant (the admin view). */
export const ALL_TENANTS = '*';

/** What one stream record adds to the aggregates. */
export interface AggregateEntry {
  /** The record's position in its stream shard (a decimal sequence number): replays are told apart by it. */
  position: string;
  /** The run that finished with this change, if it did. */
  finished?: RunSample;
  /** The run's moves into and out of QUEUED. */
  queue: QueueShift[];
}

/**
 * The records of one delivery from a stream shard, in stream order, that the aggregates should
 * count: `id` names the delivery by its first record, so a redelivery of it (same first record)
 * finds what was already counted.
 */
export interface AggregateBatch {
  id: string;
  entries: AggregateEntry[];
}

export interface RunAggregates {
  /**
   * Adds each entry to its tenant's and to the all-tenants minute buckets, exactly once however
   * often the batch is given: a batch with the same id counts only the entries positioned after
   * the last one it counted before. Returns how many entries were new.
   */
  add(batch: AggregateBatch): Promise<number>;
  /** The buckets of `scope` (a tenant id or ALL_TENANTS) from `fromMinute` to `toMinute`, inclusive. */
  read(scope: string, fromMinute: number, toMinute: number): Promise<MinuteBucket[]>;
}

/** How many jobs each status gains (negative: loses). */
export type JobStatusDeltas = Partial<Record<JobStatus, number>>;

/** One job's move from `from` (undefined: a new job) to `to`, as deltas; none when it stays put. */
export function shiftDeltas(from: JobStatus | undefined, to: JobStatus): JobStatusDeltas {
  if (from === to) return {};
  return from === undefined ? { [to]: 1 } : { [from]: -1, [to]: 1 };
}

export interface JobStatusCounts {
  /** Moves one job of the tenant from `from` (undefined: a new job) to `to`. */
  shift(tenantId: string, from: JobStatus | undefined, to: JobStatus): Promise<void>;
  /** Moves many of the tenant's jobs at once, in one write. */
  add(tenantId: string, deltas: JobStatusDeltas): Promise<void>;
  /** Jobs by status of `scope` (a tenant id, or ALL_TENANTS: the sum over every tenant). */
  read(scope: string): Promise<Partial<Record<JobStatus, number>>>;
}

/** One scanner pass over one due-index shard. */
export interface ShardHeartbeat {
  shard: string;
  /** When the pass started and how long it took. */
  at: number;
  durationMs: number;
  jobsFound: number;
  runsCreated: number;
  /** How far behind its due time the oldest job found was (0 when none was late). */
  lagMs: number;
  /** Why this shard's pass failed (its query, its sends, its sweep); absent when it finished. */
  error?: string;
}

export interface ScannerHeartbeats {
  beat(shards: ShardHeartbeat[]): Promise<void>;
  /** The latest heartbeat of every shard that has one. */
  read(): Promise<ShardHeartbeat[]>;
}

/** Accepted async runs in flight: what the deadline index holds (core/async/deadline-index.ts). */
export interface AsyncRunsInFlight {
  /**
   * How many accepted async runs are RUNNING (`inFlight`), and how many of them are past their
   * earliest deadline at `now` without the scanner's deadline pass having ended them yet (`overdue`).
   */
  count(now: number): Promise<{ inFlight: number; overdue: number }>;
}
