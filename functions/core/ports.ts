/**
 * The interfaces the core needs from the outside world. Adapters implement them (DynamoDB, SQS,
 * HTTP); unit tests pass in-memory fakes.
 */

import type { AsyncSettings } from './async/async-settings.ts';
import type { DispatchMessage, ErrorType, Job, JobStatus, Run, RunKey } from './model.ts';
import type { RunStatus, TerminalRunStatus } from './run-state.ts';
import type { ScheduleType } from './schedule/index.ts';
import type { InFlightMarker } from './schedule/overlap.ts';

export interface Page<T> {
  items: T[];
  /** Opaque; pass back to get the next page. Absent on the last page. */
  cursor?: string;
}

/** A due-index entry: what the scanner reads without touching the job item. */
export type DueJob = Pick<
  Job,
  'tenantId' | 'jobId' | 'schedule' | 'policies' | 'status' | 'version' | 'occurrenceCount' | 'priority' | 'flowControl'
> & {
  nextFireAt: number;
  /** Set when the stored item could not be read (a number beyond a JS number): the scanner quarantines it. */
  unreadable?: string;
};

/**
 * What a PAUSED job remembers, kept on the job item: the due-index entry it left, so that resume
 * can put it back and let the misfire policy decide about the occurrences missed meanwhile.
 */
export interface PauseState {
  pausedAt: number;
  /** The `nextFireAt` the job had when it was paused; absent when nothing more could fire. */
  pausedNextFireAt?: number;
}

/**
 * Why the scanner took a job out of the due-index: its own data made it fail deterministically
 * (it could not be planned or advanced). The job keeps its `nextFireAt` (where it stopped) but
 * leaves the due-index; a PATCH with a new schedule, or a pause and resume, clears the mark and
 * puts it back.
 */
export interface Quarantine {
  reason: string;
  at: number;
}

/** A job as stored: the model, plus its pause state while it is PAUSED and its quarantine, if any. */
export type StoredJob = Job & Partial<PauseState> & { quarantine?: Quarantine };

/** What a create's Idempotency-Key names: the job it creates and the request body it was sent with. */
export interface CreateKeyBinding {
  jobId: string;
  /** SHA-256 (hex) of the canonical request body (use-cases/create-job-once.ts). */
  fingerprint: string;
}

/** The Idempotency-Keys of POST /v1/jobs, per tenant: kept apart from the jobs a tenant lists. */
export interface CreateKeyRepository {
  /**
   * Binds the tenant's `key` to `binding` until `expiresAt` (epoch s), unless a live binding
   * exists (one past its `expiresAt` counts as absent, whatever TTL has not deleted yet).
   * Returns that earlier binding, or undefined when this call bound the key.
   */
  bind(
    tenantId: string,
    key: string,
    binding: CreateKeyBinding,
    now: number,
    expiresAt: number,
  ): Promise<CreateKeyBinding | undefined>;
}

/** Filters and page of a tenant's job listing (GET /v1/jobs). */
export interface JobListQuery {
  limit: number;
  cursor?: string;
  status?: JobStatus;
  type?: ScheduleType;
  /** Jobs whose name starts with this. */
  name?: string;
}

export interface JobRepository {
  /** Writes a new job; throws JobExistsError if the id exists. */
  create(job: Job): Promise<void>;
  get(tenantId: string, jobId: string): Promise<StoredJob | undefined>;
  /**
   * A tenant's jobs matching the filters, oldest first (job ids are ULIDs). A page may hold fewer
   * than `limit` items; it carries a cursor whenever more of the tenant's jobs remain to be read.
   */
  listByTenant(tenantId: string, query: JobListQuery): Promise<Page<StoredJob>>;
  /**
   * Writes `job` whole (attributes it lacks are removed, e.g. `nextFireAt`), only if the stored
   * job exists and is still at `expectedVersion`. False when someone else changed it first.
   */
  replace(job: StoredJob, expectedVersion: number): Promise<boolean>;
  /** Jobs in one due-index shard whose next occurrence is at or before `until`, earliest first. */
  findDue(shard: string, until: number, limit: number): Promise<DueJob[]>;
  /**
   * Moves a job past occurrences it has materialized, only if it is still at `expected`
   * (version). `nextFireAt` undefined removes the job from the due-index. False when someone
   * else moved it first.
   */
  advance(
    job: Pick<Job, 'tenantId' | 'jobId' | 'version' | 'occurrenceCount'>,
    change: { nextFireAt?: number; materialized: number; now: number },
  ): Promise<boolean>;
  /**
   * Quarantines a job the scanner cannot plan or advance: out of the due-index (its `nextFireAt`
   * stays, as where it stopped), `quarantine` set to the reason, only if it is still at `version`.
   * False when someone else changed it first (then the scanner looks at it again).
   */
  quarantine(job: Pick<Job, 'tenantId' | 'jobId' | 'version'>, reason: string, now: number): Promise<boolean>;
  /**
   * Records a one-time job's final status from the outcome of its occurrence `occurrence` (epoch
   * ms), only while it is ACTIVE, its schedule is `once` and still at that time: a run of an
   * occurrence the job was rescheduled away from (PATCH of `schedule.at`) never finishes it.
   */
  finish(
    tenantId: string,
    jobId: string,
    status: Extract<JobStatus, 'COMPLETED' | 'FAILED' | 'CANCELLED'>,
    now: number,
    occurrence: number,
  ): Promise<boolean>;
  /** Marks a recurring job COMPLETED once nothing more can fire (ACTIVE, no `nextFireAt`). */
  completeExhausted(tenantId: string, jobId: string, now: number): Promise<boolean>;
  /**
   * `overlap: "forbid"`: sets the job's in-flight marker to `marker` if it is free, expired
   * (`until` before `now`) or held by the same occurrence (a retry, or extending its own). Otherwise
   * `taken: false` with the marker that holds the job. A job that no longer exists is never taken.
   */
  takeInFlight(
    tenantId: string,
    jobId: string,
    marker: InFlightMarker,
    now: number,
  ): Promise<{ taken: true } | { taken: false; holder?: InFlightMarker }>;
  /** Removes the in-flight marker if `occurrence` holds it; false when it does not (expired and taken since). */
  releaseInFlight(tenantId: string, jobId: string, occurrence: number): Promise<boolean>;
}

/** What an attempt ended with: a terminal status and the run fields that describe the ending. */
export type RunOutcome = Pick<
  Run,
  | 'startedAt'
  | 'httpStatus'
  | 'durationMs'
  | 'responseExcerpt'
  | 'error'
  | 'errorType'
  | 'retryAfterSeconds'
  | 'nextAttemptAt'
  | 'outcomeReduced'
> & {
  status: Extract<TerminalRunStatus, 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'CANCELLED' | 'SKIPPED'>;
  completedAt: number;
};

export interface Lease {
  owner: string;
  expiresAt: number;
  now: number;
  /** Whether a RUNNING run whose lease expired may be taken over (at-least-once) or not (at-most-once). */
  takeOverExpired: boolean;
  /** An async job's settings, copied onto the run by the claim: what its callbacks are decided on. */
  async?: AsyncSettings;
  /** The time the run spent waiting for its flow-control key, recorded by the claim. */
  waitedMs?: number;
}

export type ClaimResult =
  | { claimed: true; run: Run }
  /** `expired`: RUNNING under a lease that ran out, not taken over (at-most-once). */
  | { claimed: false; run?: Run; expired?: boolean };

export interface RunRepository {
  /**
   * Conditional put: the first writer creates the run, later ones get the existing item back.
   * A new QUEUED run enters the sweep index in the same write, at `sweepAt` (a retry parked beyond
   * the SQS delay limit) or else at its release plus the sweep grace (runs/send-runs.ts): if no
   * executor has claimed it by then, its message never came, and the sweep sends it. With
   * `inSweepIndex: false` it does not: a scanner's run is covered by its page's dispatch intent
   * instead (runs/dispatch-intent.ts), which the caller recorded before the put.
   */
  createIfAbsent(
    run: Run,
    options?: { sweepAt?: number; inSweepIndex?: boolean },
  ): Promise<{ created: true } | { created: false; existing: Run }>;
  /**
   * QUEUED → RUNNING, or takes over a RUNNING run whose lease expired before `now`.
   * Returns the claimed run, or the current run with `claimed: false` when it cannot be claimed.
   */
  claim(key: RunKey, lease: Lease): Promise<ClaimResult>;
  /** at-most-once: a RUNNING run whose lease (`expiredLeaseAt`) ran out ends FAILED as `lost`. */
  markLost(key: RunKey, expiredLeaseAt: number, now: number): Promise<boolean>;
  /** Ends a run that is not yet terminal as DEAD_LETTERED; false if it had already ended. */
  deadLetter(key: RunKey, reason: string, now: number): Promise<boolean>;
  /** Runs in one sweep-index shard whose `sweepAt` is at or before `until`. */
  findSweepable(shard: string, until: number, limit: number): Promise<Array<Run & { sweepAt: number }>>;
  /**
   * Moves a run's `sweepAt` from `from` to `to`, counting it in the run's `sweeps`; false when
   * someone else moved it first.
   */
  rescheduleSweep(key: RunKey, from: number, to: number): Promise<boolean>;
  /**
   * Counts a sweep of a run that is not in the sweep index (its `sweeps`, as rescheduleSweep does
   * for one that is), when it is still QUEUED; false otherwise (claimed or ended meanwhile).
   */
  countSweep(key: RunKey): Promise<boolean>;
  /** A tenant's dead-lettered runs, newest first. */
  listDeadLetters(tenantId: string, options: { limit: number; cursor?: string }): Promise<Page<Run>>;
  /**
   * Records the outcome, only if `owner` still holds the lease. Throws OutcomeRejectedError when
   * the store refuses this outcome as such (too large, not representable): writing it again cannot
   * succeed, a smaller one may. Any other error may be transient.
   */
  complete(key: RunKey, owner: string, outcome: RunOutcome): Promise<boolean>;
  /**
   * Gives a claim back (RUNNING → QUEUED), only while `owner` holds it with the lease ending at
   * `leaseExpiresAt`: for an executor that failed before calling, so the next delivery claims the
   * run at once instead of waiting for the lease to run out.
   */
  release(key: RunKey, owner: string, leaseExpiresAt: number): Promise<boolean>;
  get(key: RunKey): Promise<Run | undefined>;
  /** The newest run of the same job scheduled before `key`'s occurrence (any attempt). */
  previous(key: RunKey): Promise<Run | undefined>;
  /** A job's runs, newest first. */
  listByJob(tenantId: string, jobId: string, options: RunListQuery): Promise<Page<Run>>;
  /**
   * Deletes a run that is still QUEUED (no executor claimed it): un-materializes an occurrence a
   * pause or a reschedule made obsolete. Its message then finds no run and makes no call. False
   * when the run was claimed, finished or missing.
   */
  discardQueued(key: RunKey): Promise<boolean>;
  /**
   * Binds a manual trigger's Idempotency-Key (per job) to an occurrence time, until `expiresAt`
   * (epoch s). Returns the time bound to the key: `scheduledFor` if this call bound it, or the
   * time an earlier request with the same key bound. With `replacing`, moves a binding that is
   * still at `replacing` to `scheduledFor` (the time it named was taken by another trigger).
   */
  bindTriggerKey(
    job: Pick<RunKey, 'tenantId' | 'jobId'>,
    idempotencyKey: string,
    scheduledFor: number,
    now: number,
    expiresAt: number,
    replacing?: number,
  ): Promise<number>;
  /**
   * The job's newest runs scheduled at or before `until` (any attempt, newest attempt first),
   * at most `limit`, read strongly consistent: what its latest occurrence came to.
   */
  latestRuns(job: Pick<RunKey, 'tenantId' | 'jobId'>, until: number, limit: number): Promise<Run[]>;
}

/** Filters and page of a job's run history (GET /v1/jobs/{id}/runs). */
export interface RunListQuery {
  limit: number;
  cursor?: string;
  status?: RunStatus;
  /** Runs scheduled at or after this instant (epoch ms). */
  from?: number;
  /** Runs scheduled at or before this instant (epoch ms). */
  to?: number;
}

/** One run to send, and when the queue should release it. */
export interface DispatchRequest {
  message: DispatchMessage;
  releaseAt: number;
}

export interface RunDispatcher {
  /**
   * Sends each run to the dispatch queue, to be released at `releaseAt` (epoch ms; at most 900 s
   * ahead, earlier ones at once). The delay is computed as each batch is sent, not when the caller
   * planned it, so a long pass never releases a run late by its own duration.
   */
  dispatch(messages: DispatchRequest[]): Promise<void>;
  /**
   * Hears of a dispatch that failed after its runs were stored (runs/send-runs.ts): they wait in
   * the sweep index, so this only reports (a log line), it never throws.
   */
  unsent?(messages: DispatchRequest[], error: unknown): void;
}

/**
 * The queue message that brought a run to this executor. As the run is claimed, the message is
 * kept out of sight until the lease ends, and no longer: should this executor die holding the run,
 * the message comes back then, and the next executor takes the run over (at-least-once) or records
 * it as lost (at-most-once). The lease, not the message, decides who may call; the message only
 * decides when someone looks again.
 */
export interface RunRedelivery {
  /** The run is being claimed until `leaseExpiresAt` (epoch ms). Never blocks: the message is told in the background. */
  afterLease(leaseExpiresAt: number): void;
}

export interface HttpRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

export type HttpResult =
  | {
      kind: 'response';
      status: number;
      bodyExcerpt: string;
      durationMs: number;
      startedAt: number;
      /** Retry-After, in seconds from the answer, when the target sent one. */
      retryAfterSeconds?: number;
      /** What the invoker clamped or ignored in the answer (recorded with the run). */
      notes?: string[];
    }
  | {
      kind: 'error';
      errorType: ErrorType;
      message: string;
      durationMs: number;
      startedAt: number;
      notes?: string[];
    };

export interface HttpInvoker {
  invoke(request: HttpRequest): Promise<HttpResult>;
  /** `request` is built and will be invoked at `at` (epoch ms): see untilCallsSent. */
  plan?(request: HttpRequest, at: number): void;
  /**
   * Resolves once the calls this process is making now (just started, or planned for now) have
   * been sent, or after `maxWaitMs`: a call's outcome is written after the rest of its burst went out.
   */
  untilCallsSent?(maxWaitMs: number): Promise<void>;
}

export interface Clock {
  now(): number;
  /** Resolves at `epochMs` (immediately if it has passed). */
  sleepUntil(epochMs: number): Promise<void>;
}

export interface IdGenerator {
  /** A new, lexicographically time-sortable id. */
  next(now: number): string;
}
