/**
 * The Chronos domain model. Times are epoch milliseconds inside the system and ISO-8601 strings
 * at the API boundary.
 */
import type { AsyncSettings } from './async/async-settings.ts';
import type { FlowControlSettings } from './flow-control/flow-control-settings.ts';
import type { Priority } from './priority.ts';
import type { RetryPolicy } from './retry-policy.ts';
import type { RunStatus } from './run-state.ts';
import type { MisfirePolicy, OverlapPolicy, ScheduleSpec, ScheduleType } from './schedule/index.ts';
import type { SealedHeaders } from './secrets/secret-headers.ts';

export const JOB_STATUSES = ['ACTIVE', 'PAUSED', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** What Chronos calls when an occurrence is due. */
export interface Target {
  url: string;
  method: HttpMethod;
  headers: Record<string, string>;
  /** Sent as-is; JSON bodies are serialized once at creation. */
  body?: string;
  /** Headers encrypted at rest, opened only by the executor (secrets/secret-headers.ts). */
  secretHeaders?: SealedHeaders;
}

/** When a job fires: once, every N seconds, or on a cron expression in a time zone (see schedule/). */
export type Schedule = ScheduleSpec;

/** What to do with missed occurrences, and with an occurrence whose predecessor is still running. */
export interface JobPolicies {
  misfire: MisfirePolicy;
  overlap: OverlapPolicy;
}

export const DEFAULT_POLICIES: JobPolicies = { misfire: 'fire_once', overlap: 'allow' };

/**
 * at-least-once: failed attempts are retried and a run whose executor died is called again (the
 * Idempotency-Key lets the target dedupe). at-most-once: never a second call for an occurrence.
 */
export const DELIVERY_MODES = ['at-least-once', 'at-most-once'] as const;
export type Delivery = (typeof DELIVERY_MODES)[number];

export interface Job {
  tenantId: string;
  jobId: string;
  name?: string;
  target: Target;
  schedule: Schedule;
  policies: JobPolicies;
  retry: RetryPolicy;
  delivery: Delivery;
  /** Receives a JSON summary when an occurrence fails for good. */
  onFailureUrl?: string;
  timeoutSeconds: number;
  /** Start-lag target in seconds (run-timing.ts; default 5): a run started later missed its SLA. */
  slaSeconds?: number;
  /**
   * Present for a job whose target takes its work with 202 and reports back through callbacks
   * (core/async/): how long a silent worker is trusted, an attempt may live, a cancel may wait.
   */
  async?: AsyncSettings;
  /** Its runs' priority lane (core/priority.ts); absent is `normal`. */
  priority?: Priority;
  /** The key whose limits its runs share with the tenant's other runs of that key (core/flow-control/). */
  flowControl?: FlowControlSettings;
  status: JobStatus;
  /**
   * Internal write counter, bumped on every write (the scanner's and the completion handler's
   * too); the condition of optimistic concurrency between them and the API. Never shown: the
   * API's `version` is `definitionVersion`.
   */
  version: number;
  /**
   * Bumped by the tenant's changes only (PATCH, pause, resume, cancel): the API's `version`, ETag
   * and If-Match (definition-version.ts). Absent on jobs stored before it existed: then `version`.
   */
  definitionVersion?: number;
  createdAt: number;
  updatedAt: number;
  /** Next occurrence not yet materialized; absent once nothing more can fire. */
  nextFireAt?: number;
  /** Due-index partition; present exactly when `nextFireAt` is. */
  dueShard?: string;
  /** Occurrences materialized so far. */
  occurrenceCount: number;
}

/** Identifies one attempt of one occurrence of a job. */
export interface RunKey {
  tenantId: string;
  jobId: string;
  scheduledFor: number;
  attempt: number;
}

export interface Run extends RunKey {
  runId: string;
  status: RunStatus;
  createdAt: number;
  /**
   * When the run's message was handed to SQS: at creation for runs sent right away, then, once an
   * executor ran it, SQS's own SentTimestamp of the message it ran from. Absent while a retry is
   * parked in the sweep index (not in SQS yet).
   */
  enqueuedAt?: number;
  /** When SQS first handed the message to an executor (ApproximateFirstReceiveTimestamp). */
  receivedAt?: number;
  claimedAt?: number;
  startedAt?: number;
  completedAt?: number;
  leaseOwner?: string;
  leaseExpiresAt?: number;
  /** How many times an expired lease was taken over. */
  recoveries?: number;
  /**
   * How many times the scanner's sweep picked the run up and sent it: a retry parked beyond the SQS
   * delay limit once, and a run still unclaimed past its release plus the grace whenever its message
   * never came (a writer that died before sending, a failed send, a lost message).
   */
  sweeps?: number;
  httpStatus?: number;
  durationMs?: number;
  responseExcerpt?: string;
  error?: string;
  errorType?: ErrorType;
  /** The target's Retry-After (s), when it sent one. */
  retryAfterSeconds?: number;
  /** Set on a failed attempt that will be retried: when the next attempt starts. */
  nextAttemptAt?: number;
  /**
   * Why the outcome was recorded without some of its fields (status, error type and timings kept):
   * the store refused it whole, e.g. too large an item.
   */
  outcomeReduced?: string;
  /** A retry (or a parked run) is not released to the executor before this time. */
  availableAt?: number;
  deadLetteredAt?: number;
  /** The job's slaSeconds when the executor ran the run, so the run's SLA verdict never needs the job. */
  slaSeconds?: number;
  /** Made by `POST /v1/jobs/{id}/trigger`, outside the schedule: it runs even while the job is paused. */
  triggered?: boolean;
  /**
   * The request Idempotency-Key a triggered run was made for: another key finding this run at the
   * time it bound is a collision (it moves on), not a replay.
   */
  triggerKey?: string;
  /**
   * The job's schedule type when the run was made, so completion knows a one-time job without
   * reading it. Absent on runs made before it was recorded.
   */
  scheduleType?: ScheduleType;
  /**
   * The last occurrence a recurring schedule makes (as materialized; its retries keep the mark):
   * only its completion can find the job exhausted, so only it tries to complete the job.
   */
  finalOccurrence?: boolean;
  /**
   * The job's `async` settings, copied at the claim of an async job's attempt (the call that hands
   * out its callback URL): what the callbacks and the deadline pass decide on (core/async/), even
   * if the job changes or goes meanwhile. Absent on runs of other jobs.
   */
  async?: AsyncSettings;
  /** Bumped by every write an async decision makes: the exact condition of the next (core/async/async-run.ts). */
  asyncRevision?: number;
  /** When the target's 202 (or a first heartbeat) took the work. */
  acceptedAt?: number;
  heartbeatAt?: number;
  heartbeatDeadline?: number;
  maxDurationDeadline?: number;
  /** 0–100, as the worker's last heartbeat said. */
  progress?: number;
  progressMessage?: string;
  /** The worker's last checkpoint, as JSON text (≤ 16 KB): shown by GET /v1/runs/{runId} and the callback GET. */
  checkpointJson?: string;
  checkpointAt?: number;
  /** A soft cancel was requested (POST /v1/runs/{runId}/cancel, or the job's cancel). */
  cancelRequestedAt?: number;
  /** What the worker's completion carried, as JSON text (≤ 64 KB). */
  outputJson?: string;
  /** A worker's `failed` completion said whether a retry may help. */
  retryable?: boolean;
  /** Digest of the completion that ended the run: the same completion again is answered as the first. */
  completionDigest?: string;
  /** A task run of a workflow (core/workflows/stored.ts): the workflow run it belongs to... */
  workflowRunId?: string;
  /** ...and the task's key in it. */
  taskKey?: string;
  /**
   * The request body this attempt sends instead of its job's: a workflow task with
   * `input: "upstream"` (core/workflows/upstream-input.ts), computed when the task started.
   */
  requestBody?: string;
  /** The job's priority when the run was made (absent: `normal`): the lane its messages go to. */
  priority?: Priority;
  /** The job's flow-control key and limits when the run was made (core/flow-control/). */
  flowControl?: FlowControlSettings;
  /** How long the run waited for its flow-control key before its call (ms, all waits added up). */
  waitedMs?: number;
  /** The sparse deadline index of accepted async runs in flight (core/async/deadline-index.ts). */
  deadlineShard?: string;
  deadlineAt?: number;
}

export type ErrorType =
  | 'timeout'
  | 'connection'
  | 'http_5xx'
  | 'http_4xx'
  | 'invalid_target'
  | 'blocked_target'
  | 'cancelled'
  | 'overlap'
  | 'paused'
  /** at-most-once: the executor died mid-call, so whether the target was called is unknown. */
  | 'lost'
  | 'dead_letter'
  /** A one-time job's run for another time than the job's `at` (moved by PATCH, or a retried create's "now"). */
  | 'superseded'
  /** An async run whose worker stopped heartbeating (core/async/). */
  | 'heartbeat_timeout'
  /** An async run whose worker completed with `failed`. */
  | 'worker_failed';

/** The body of a dispatch-queue message: just enough to find the run, and the lane it goes to. */
export interface DispatchMessage extends RunKey {
  runId: string;
  /** The run's lane (core/priority.ts); absent is `normal`, as on the run. */
  priority?: Priority;
}
