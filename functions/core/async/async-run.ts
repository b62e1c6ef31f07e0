/**
 * An async run as its decisions see it, and what a decision returns. Every event about an async
 * run (the executor saw 202, a heartbeat, a completion, a cancel request, the scanner's deadline
 * pass) is decided by a pure function of (state read, event, now) into an AsyncDecision: at most
 * one write, and the answer to give. The adapters make each write conditional on `condition` (the
 * state it was decided on); when the condition fails, they read the run again and decide again, so
 * two events racing each other are decided one after the other, never both on the same state.
 *
 * Fencing: a callback token names one attempt (callback-token.ts), and every attempt is its own
 * run item. Only the run of the token's attempt may be heartbeated or completed, and only while it
 * has not ended: an older attempt's worker meets an ended run (its own attempt timed out, failed
 * or was cancelled before the retry was made) and gets RUN_ENDED, so two workers never both own
 * the work. `revision` (the run's `asyncRevision`, bumped by every write decided here) makes the
 * conditions exact: a write decided on a state that changed meanwhile never lands.
 *
 * Deadlines are the truth, the scanner only their recorder: an event arriving after a deadline
 * passed finds the run ended even when the scanner has not written it yet (the event's decision
 * writes the end itself and answers RUN_ENDED). A deadline is passed when `now` is after it; an
 * event at the deadline itself is still in time.
 */
import type { Run, RunKey } from '../model.ts';
import type { RunStatus } from '../run-state.ts';
import type { AsyncSettings } from './async-settings.ts';

/** What a decision reads of a run (the item of the attempt the event names). */
export interface AsyncRunState extends RunKey {
  status: RunStatus;
  /** `asyncRevision` on the item, 0 when absent: bumped by every write this module decides. */
  revision: number;
  /** The run's copy of its job's `async` field (made with the run); a run without it is not async. */
  settings: AsyncSettings;
  /** The executor holding the claim while it calls the target. */
  leaseOwner?: string;
  /** When the executor claimed the run, right before calling: the attempt's start. */
  claimedAt?: number;
  /** When the target's 202 (or the first heartbeat) was recorded: from then on the deadlines run. */
  acceptedAt?: number;
  heartbeatDeadline?: number;
  maxDurationDeadline?: number;
  cancelRequestedAt?: number;
  /** Digest of the completion that ended the run (completion-body.ts), when one did. */
  completionDigest?: string;
  /**
   * The run's deadline index entry as stored (deadline-index.ts): never later than its earliest
   * deadline, but possibly earlier — a heartbeat leaves it where it was, and the deadline pass moves it.
   */
  deadlineAt?: number;
}

/** How an async attempt ended without a successful completion; the error types beside model.ts's. */
export type AsyncErrorType = 'heartbeat_timeout' | 'timeout' | 'cancelled' | 'worker_failed';

export type AsyncEnd =
  | { status: 'SUCCEEDED' }
  | { status: 'FAILED'; errorType: 'worker_failed'; retryable: boolean }
  | { status: 'TIMED_OUT'; errorType: 'heartbeat_timeout' | 'timeout' }
  | { status: 'CANCELLED'; errorType: 'cancelled' };

/** Attributes of the run item the decisions set (besides those model.ts already names). */
/**
 * The run attributes a decision writes: the run's own (model.ts, which says what each means), with
 * the status and error type narrowed to what an async decision gives. `leaseExpiresAt` keeps the
 * executor's takeover away from an accepted run (its lease becomes the max-duration deadline);
 * `nextAttemptAt` is set on an end the job's retry policy retries (async-retry.ts); the call's
 * start, status and delivery stamp are the executor's record of the 202; `deadlineShard` and
 * `deadlineAt` are the sparse deadline index (deadline-index.ts).
 */
export interface AsyncRunChanges
  extends Partial<
    Pick<
      Run,
      | 'acceptedAt'
      | 'leaseExpiresAt'
      | 'heartbeatAt'
      | 'heartbeatDeadline'
      | 'maxDurationDeadline'
      | 'progress'
      | 'progressMessage'
      | 'checkpointJson'
      | 'checkpointAt'
      | 'cancelRequestedAt'
      | 'completedAt'
      | 'durationMs'
      | 'error'
      | 'outputJson'
      | 'retryable'
      | 'completionDigest'
      | 'nextAttemptAt'
      | 'startedAt'
      | 'httpStatus'
      | 'enqueuedAt'
      | 'receivedAt'
      | 'slaSeconds'
      | 'deadlineShard'
      | 'deadlineAt'
    >
  > {
  /** Always the condition's revision + 1. */
  asyncRevision: number;
  status?: 'RUNNING' | AsyncEnd['status'];
  errorType?: AsyncErrorType;
}

export const DEADLINE_INDEX_ATTRIBUTES = ['deadlineShard', 'deadlineAt'] as const;

/** One conditional write: it holds only while the run is still in `condition`. */
export interface AsyncRunWrite {
  condition: {
    status: RunStatus;
    /** 0 means the item has no `asyncRevision` yet. */
    revision: number;
    /** Only for the executor's write of the 202: the claim must still be its own. */
    leaseOwner?: string;
  };
  set: AsyncRunChanges;
  remove: readonly (typeof DEADLINE_INDEX_ATTRIBUTES)[number][];
}

/**
 * The answer of a decision. `refused` maps to 409 with the code (404 for RUN_NOT_FOUND); the
 * others to 200, except `ignored` (the executor's 202 came after the run moved on: nothing to do).
 */
export type AsyncAnswer =
  | { kind: 'accepted'; heartbeatDeadline: number }
  | { kind: 'heartbeat'; cancelRequested: boolean; heartbeatDeadline: number }
  | { kind: 'completed'; replay: boolean; status: AsyncEnd['status'] }
  | { kind: 'cancel-requested'; alreadyRequested: boolean }
  | { kind: 'cancelled' }
  | { kind: 'expired'; end: AsyncEnd }
  | { kind: 'alive'; deadlineAt?: number }
  | { kind: 'ignored'; reason: string }
  | { kind: 'refused'; code: 'RUN_ENDED' | 'RUN_NOT_STARTED' | 'RUN_NOT_FOUND' };

export interface AsyncDecision {
  write?: AsyncRunWrite;
  answer: AsyncAnswer;
}

/** What every decision needs besides the state: the time, and the shard count of the deadline index. */
export interface DecisionContext {
  now: number;
  shardCount: number;
}
