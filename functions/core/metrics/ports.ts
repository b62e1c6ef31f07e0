/**
 * What monitoring needs from storage: run aggregates (per-tenant minute buckets), job-status
 * counters and the scanner's heartbeats. The DynamoDB metrics table implements them all.
 */
import type { JobStatus } from '../model.ts';
import type { MinuteBucket } from './minute-bucket.ts';
import type { RunSample } from './run-sample.ts';

/** The scope that aggregates every tenant (the admin view). */
export const ALL_TENANTS = '*';

export interface RunAggregates {
  /**
   * Adds each sample to its tenant's and to the all-tenants minute bucket, exactly once per run id
   * however often it is given (stream records can be delivered twice). Returns how many were new.
   */
  add(samples: RunSample[]): Promise<number>;
  /** The buckets of `scope` (a tenant id or ALL_TENANTS) from `fromMinute` to `toMinute`, inclusive. */
  read(scope: string, fromMinute: number, toMinute: number): Promise<MinuteBucket[]>;
}

export interface JobStatusCounts {
  /** Moves one job of the tenant from `from` (undefined: a new job) to `to`. */
  shift(tenantId: string, from: JobStatus | undefined, to: JobStatus): Promise<void>;
  /** Jobs by status of `scope` (a tenant id or ALL_TENANTS). */
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
}

export interface ScannerHeartbeats {
  beat(shards: ShardHeartbeat[]): Promise<void>;
  /** The latest heartbeat of every shard that has one. */
  read(): Promise<ShardHeartbeat[]>;
}
