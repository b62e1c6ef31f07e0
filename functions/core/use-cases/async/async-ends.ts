/**
 * What an async run's end needs beyond the decision itself, which only sees the run: the job's
 * retry policy (an end that may be retried carries `nextAttemptAt`, from which the completion
 * handler makes the next attempt, as for a synchronous call), and, for an `overlap: "forbid"`
 * job, its in-flight marker: freed when the occurrence ends, kept for its retry otherwise (as
 * the executor does after a synchronous call).
 */
import { asyncNextAttemptAt } from '../../async/async-retry.ts';
import type { AsyncDecision, AsyncEnd, AsyncRunChanges, AsyncRunState } from '../../async/async-run.ts';
import type { AsyncRunStore, StoredAsyncRun } from '../../async/ports.ts';
import type { Job, RunKey } from '../../model.ts';
import type { JobRepository } from '../../ports.ts';
import { runIdOf } from '../../run-id.ts';
import { type Applied, decideAndApply } from './decide-and-apply.ts';

export interface AsyncEndDeps {
  jobs: Pick<JobRepository, 'get' | 'takeInFlight' | 'releaseInFlight'>;
  /** Uniform in [0, 1): the jitter of retry backoff. */
  random: () => number;
  config: { leaseMarginMs: number };
}

/** The end a write's `set` records, when it ends the run. */
function endOfChanges(set: AsyncRunChanges): AsyncEnd | undefined {
  switch (set.status) {
    case 'SUCCEEDED':
      return { status: 'SUCCEEDED' };
    case 'CANCELLED':
      return { status: 'CANCELLED', errorType: 'cancelled' };
    case 'TIMED_OUT':
      return { status: 'TIMED_OUT', errorType: set.errorType === 'timeout' ? 'timeout' : 'heartbeat_timeout' };
    case 'FAILED':
      return { status: 'FAILED', errorType: 'worker_failed', retryable: set.retryable !== false };
    default:
      return undefined;
  }
}

/** Reads the run's job once per use case, whatever the rounds of its decision. */
function jobOnce(deps: AsyncEndDeps, key: Pick<RunKey, 'tenantId' | 'jobId'>): () => Promise<Job | undefined> {
  let read: Promise<Job | undefined> | undefined;
  return () => {
    read ??= deps.jobs.get(key.tenantId, key.jobId);
    return read;
  };
}

/** `decision` with its end's retry decided: `nextAttemptAt` when the job's policy retries it. */
async function withRetryDecision(
  deps: AsyncEndDeps,
  state: AsyncRunState,
  decision: AsyncDecision,
  job: () => Promise<Job | undefined>,
): Promise<AsyncDecision> {
  const write = decision.write;
  const end = write && endOfChanges(write.set);
  if (!write || !end || end.status === 'SUCCEEDED' || end.status === 'CANCELLED') return decision;
  const stored = await job();
  if (!stored) return decision; // the job is gone: nothing to retry for
  const at = asyncNextAttemptAt(end, stored, state.attempt, write.set.completedAt ?? Date.now(), deps.random());
  if (at === undefined) return decision;
  return { ...decision, write: { ...write, set: { ...write.set, nextAttemptAt: at } } };
}

/**
 * After an end was written: an `overlap: "forbid"` job's marker is freed, or kept for the retry
 * until that attempt's lease could end. Best effort: a marker not released expires at its `until`.
 */
async function settleInFlightAfterEnd(
  deps: AsyncEndDeps,
  key: RunKey & { runId: string },
  set: AsyncRunChanges,
  job: () => Promise<Job | undefined>,
  now: number,
): Promise<void> {
  if (!endOfChanges(set)) return;
  try {
    const stored = await job();
    if (stored?.policies.overlap !== 'forbid') return;
    if (set.nextAttemptAt === undefined) {
      await deps.jobs.releaseInFlight(key.tenantId, key.jobId, key.scheduledFor);
      return;
    }
    const until = set.nextAttemptAt + stored.timeoutSeconds * 1000 + deps.config.leaseMarginMs;
    await deps.jobs.takeInFlight(
      key.tenantId,
      key.jobId,
      { scheduledFor: key.scheduledFor, runId: key.runId, until },
      now,
    );
  } catch {
    // The marker expires at its `until`.
  }
}

/**
 * What every event on an async run goes through (the 202, a callback, a cancel, the deadline
 * pass): `decide` on the run read (decide-and-apply.ts), an end it makes given its retry, and
 * once written, that end's in-flight marker settled. The job is read at most once, and only for
 * an end.
 */
export async function decideAsyncEvent(
  deps: AsyncEndDeps & { store: AsyncRunStore },
  key: RunKey,
  now: number,
  decide: (state: StoredAsyncRun | undefined) => AsyncDecision | Promise<AsyncDecision>,
): Promise<Applied> {
  const job = jobOnce(deps, key);
  const applied = await decideAndApply(deps.store, key, async (state) => {
    const decision = await decide(state);
    return state ? withRetryDecision(deps, state, decision, job) : decision;
  });
  if (applied.write) await settleInFlightAfterEnd(deps, { ...key, runId: runIdOf(key) }, applied.write.set, job, now);
  return applied;
}
