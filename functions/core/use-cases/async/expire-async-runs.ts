/**
 * The scanner's deadline pass: every accepted async run in flight is in the sparse deadline index
 * under its earliest deadline (core/async/deadline-index.ts); each pass asks every shard for the
 * runs whose deadline has passed and ends them (TIMED_OUT for a missed heartbeat or the max
 * duration, CANCELLED when a cancel's grace ran out), with the retry the job's policy gives. A
 * missed heartbeat is so found within one scanner interval of its deadline, with no table scan and
 * no Lambda held open. One run that cannot be decided never stops the others.
 */
import { decideDeadlines } from '../../async/deadline-decision.ts';
import type { AsyncRunStore } from '../../async/ports.ts';
import type { Clock } from '../../ports.ts';
import { type AsyncEndDeps, decideAsyncEvent } from './async-ends.ts';

export interface ExpireAsyncDeps extends AsyncEndDeps {
  store: AsyncRunStore;
  clock: Clock;
  config: AsyncEndDeps['config'] & { shardCount: number };
  /** Called for a run whose decision failed (logged by the handler); the pass goes on. */
  onError?: (error: unknown) => void;
}

/** Runs decided per shard and pass; more wait for the next pass (the oldest deadlines first). */
export const DEADLINE_PAGE_SIZE = 100;

export interface ExpireResult {
  /** Runs ended, by error type (heartbeat_timeout, timeout, cancelled). */
  ended: Record<string, number>;
  failed: number;
}

/** Ends the async runs of `shards` whose deadline passed before now. */
export async function expireAsyncRuns(deps: ExpireAsyncDeps, shards: readonly string[]): Promise<ExpireResult> {
  const result: ExpireResult = { ended: {}, failed: 0 };
  const now = deps.clock.now();
  const context = { now, shardCount: deps.config.shardCount };
  for (const shard of shards) {
    let keys: Awaited<ReturnType<AsyncRunStore['pastDeadline']>>;
    try {
      keys = await deps.store.pastDeadline(shard, now, DEADLINE_PAGE_SIZE);
    } catch (error) {
      result.failed++;
      deps.onError?.(error);
      continue;
    }
    for (const key of keys) {
      try {
        const applied = await decideAsyncEvent(deps, key, now, (state) =>
          state?.isAsync
            ? decideDeadlines(state, context)
            : { answer: { kind: 'ignored', reason: 'not an async run' } },
        );
        if (applied.write && applied.answer.kind === 'expired') {
          const type = applied.answer.end.status === 'SUCCEEDED' ? 'succeeded' : applied.answer.end.errorType;
          result.ended[type] = (result.ended[type] ?? 0) + 1;
        }
      } catch (error) {
        result.failed++;
        deps.onError?.(error);
      }
    }
  }
  return result;
}
