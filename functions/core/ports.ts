/**
 * The interfaces the core needs from the outside world. Adapters implement them (DynamoDB, SQS,
 * HTTP); unit tests pass in-memory fakes.
 */
import type { DispatchMessage, ErrorType, Job, JobStatus, Run, RunKey } from './model.ts';
import type { TerminalRunStatus } from './run-state.ts';

export interface Page<T> {
  items: T[];
  /** Opaque; pass back to get the next page. Absent on the last page. */
  cursor?: string;
}

/** A due-index entry: what the scanner reads without touching the job item. */
export type DueJob = Pick<
  Job,
  'tenantId' | 'jobId' | 'schedule' | 'policies' | 'status' | 'version' | 'occurrenceCount'
> & {
  nextFireAt: number;
};

export interface JobRepository {
  /** Writes a new job; fails if the id exists. */
  create(job: Job): Promise<void>;
  get(tenantId: string, jobId: string): Promise<Job | undefined>;
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
  /** Records a one-time job's final status, only while it is ACTIVE and its schedule is `once`. */
  finish(
    tenantId: string,
    jobId: string,
    status: Extract<JobStatus, 'COMPLETED' | 'FAILED'>,
    now: number,
  ): Promise<boolean>;
  /** Marks a recurring job COMPLETED once nothing more can fire (ACTIVE, no `nextFireAt`). */
  completeExhausted(tenantId: string, jobId: string, now: number): Promise<boolean>;
}

export interface RunOutcome {
  status: Extract<TerminalRunStatus, 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'CANCELLED' | 'SKIPPED'>;
  completedAt: number;
  startedAt?: number;
  httpStatus?: number;
  durationMs?: number;
  responseExcerpt?: string;
  error?: string;
  errorType?: ErrorType;
}

export interface RunRepository {
  /** Conditional put: the first writer creates the run, later ones get the existing item back. */
  createIfAbsent(run: Run): Promise<{ created: true } | { created: false; existing: Run }>;
  /**
   * QUEUED → RUNNING, or takes over a RUNNING run whose lease expired before `now`.
   * Returns the claimed run, or the current run with `claimed: false` when it cannot be claimed.
   */
  claim(
    key: RunKey,
    lease: { owner: string; expiresAt: number; now: number },
  ): Promise<{ claimed: true; run: Run } | { claimed: false; run?: Run }>;
  /** Records the outcome, only if `owner` still holds the lease. */
  complete(key: RunKey, owner: string, outcome: RunOutcome): Promise<boolean>;
  get(key: RunKey): Promise<Run | undefined>;
  /** The newest run of the same job scheduled before `key`'s occurrence (any attempt). */
  previous(key: RunKey): Promise<Run | undefined>;
  /** A job's runs, newest first. */
  listByJob(tenantId: string, jobId: string, options: { limit: number; cursor?: string }): Promise<Page<Run>>;
}

export interface RunDispatcher {
  /** Sends each run to the dispatch queue, to be released `delaySeconds` (0..900) from now. */
  dispatch(messages: Array<{ message: DispatchMessage; delaySeconds: number }>): Promise<void>;
}

export interface HttpRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

export type HttpResult =
  | { kind: 'response'; status: number; bodyExcerpt: string; durationMs: number; startedAt: number }
  | { kind: 'error'; errorType: ErrorType; message: string; durationMs: number; startedAt: number };

export interface HttpInvoker {
  invoke(request: HttpRequest): Promise<HttpResult>;
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
