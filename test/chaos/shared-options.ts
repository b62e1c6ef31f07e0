/**
 * The startLocalChronos options every process of the chaos run must agree on: each process
 * provisions the queues again (idempotently, but with its own attributes), and the horizon, shard
 * count and lease margin are read by whichever process runs the code that needs them.
 */
import type { LocalChronosOptions } from '#local/chronos-local';
import type { LocalEndpoints } from '#local/emulators/local-clients';
import type { ChaosConfig } from './chaos-config.ts';

export type SharedOptions = Pick<
  LocalChronosOptions,
  | 'endpoints'
  | 'namePrefix'
  | 'scanHorizonSeconds'
  | 'leaseMarginSeconds'
  | 'visibilityTimeoutSeconds'
  | 'maxReceiveCount'
  | 'dueShardCount'
  | 'quotas'
  | 'sweepGraceSeconds'
>;

export function sharedOptions(config: ChaosConfig, endpoints: LocalEndpoints): SharedOptions {
  return {
    endpoints,
    namePrefix: 'chaos-',
    scanHorizonSeconds: config.scanHorizonSeconds,
    leaseMarginSeconds: config.leaseMarginSeconds,
    visibilityTimeoutSeconds: config.visibilityTimeoutSeconds,
    maxReceiveCount: config.maxReceiveCount,
    // Fewer than the default 16: each of the three scanners queries every shard twice a scan.
    dueShardCount: 4,
    // Runs left unsent by the faults (a killed scan, the SQS outage) are sent this long after their release.
    sweepGraceSeconds: config.sweepGraceSeconds,
    // One tenant owns the whole workload: its quotas must not be what limits the run. The local
    // in-flight cap (4) would turn 1,000 jobs into a queue of throttled re-sends.
    quotas: { maxConcurrentRuns: 1_000, createsPerSecond: 1_000, createBurst: 2_000, maxActiveJobs: 10_000 },
  };
}

/**
 * The roles of worker processes: each runs one part of local Chronos. `completion` is the runs
 * stream's mapping and handler, `dead-letter` the consumer of the dispatch queue's DLQ.
 */
export type WorkerRole = 'executor' | 'scanner' | 'completion' | 'dead-letter' | 'api';

/** What the coordinator tells a worker process (as its one command-line argument, JSON). */
export interface WorkerSettings {
  role: WorkerRole;
  shared: SharedOptions;
  sqsConcurrency: number;
  scannerIntervalMs: number;
  /** The API's port: the same for every API process, so clients reach the one that replaces a killed one. */
  apiPort?: number;
  /** Completion: the stream mapping's checkpoint per shard, as the killed process left it. */
  streamCheckpoints?: Record<string, string>;
  /** Executor: jobs whose first attempt's message fails on every receive (the poison case). */
  poisonJobIds?: string[];
}

/** Messages a worker sends to the coordinator. */
export type WorkerMessage =
  | { type: 'ready' }
  /** A batch (executor, completion, dead letters) or a create request (API) began; `jobNames` for the API. */
  | { type: 'batch-start'; id: string; runIds: string[]; jobNames?: string[] }
  | { type: 'batch-end'; id: string }
  | { type: 'scan-start'; scan: number }
  | { type: 'scan-end'; scan: number }
  /**
   * The armed scanner holds a dispatch send of runs it created in this scan, waiting to be
   * killed: `heldRunIds` are that send's, `createdRunIds` every run the scan has put so far
   * (created, or in flight: the process does nothing more until the SIGKILL).
   */
  | {
      type: 'holding';
      /** What the scanner was armed for: any scan that sends runs it created, or a misfire catch-up. */
      mode: ArmMode;
      scan: number;
      heldRunIds: string[];
      createdRunIds: string[];
      /** The runs whose put this scan saw succeed and that it had not sent: nothing but the sweep can send them. */
      confirmedRunIds: string[];
    }
  /** A dispatch send failed (the SQS outage): these runs are left to the sweep. */
  | { type: 'unsent'; runIds: string[] }
  /**
   * An armed completion, dead-letter or API process holds its work, waiting to be killed: a
   * completion batch after its first write, a dead-letter batch before anything is recorded, a
   * create whose job is written but whose answer is not sent.
   */
  | {
      type: 'held';
      mode: HoldMode;
      runIds: string[];
      jobNames: string[];
      writesDone: number;
      /** `mid-step`: the task run the batch's workflow step had just put; `mid-trigger`: the first task run the trigger had sent. */
      taskRunId?: string;
    }
  /** Completion: the stream mapping's new checkpoint for a shard. */
  | { type: 'checkpoint'; shardId: string; sequenceNumber: string }
  /** Executor: a poison message failed again (its receive count as SQS gave it). */
  | { type: 'poison-refused'; runId: string; receiveCount: number };

/**
 * `mid-scan`: hold the first send of runs the scan created. `catch-up`: hold the first send of runs
 * the scan created for occurrences long past, i.e. a misfire catch-up (runs are otherwise
 * materialized ahead of their time).
 */
export type ArmMode = 'mid-scan' | 'catch-up';

/**
 * `mid-batch`: completion, after the batch's first write; `mid-step`: completion, once the batch
 * has put a task run's first attempt (a workflow step started a task) and before anything else;
 * `dead-letter`: the DLQ consumer; `mid-create`: the API; `mid-trigger`: the API, once a
 * workflow trigger has sent its first tasks' runs, before it writes the workflow run naming them.
 */
export type HoldMode = 'mid-batch' | 'mid-step' | 'dead-letter' | 'mid-create' | 'mid-trigger';

/** Messages the coordinator sends to a worker. */
export type CoordinatorMessage =
  | { type: 'arm'; mode: ArmMode }
  | { type: 'disarm' }
  | { type: 'hold'; mode: HoldMode }
  | { type: 'hold-off' }
  | { type: 'poison'; jobId: string };
