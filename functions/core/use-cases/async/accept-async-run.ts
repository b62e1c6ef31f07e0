/**
 * The executor's side of an async run: the target answered 202, so the run becomes an accepted
 * async run, RUNNING under its heartbeat and max-duration deadlines (core/async/accept-decision.ts),
 * and the executor writes no outcome of its own. A worker's heartbeat or completion may have been
 * faster: then there is nothing left to record.
 */
import { decideAccepted } from '../../async/accept-decision.ts';
import type { AsyncRunChanges } from '../../async/async-run.ts';
import type { AsyncRunStore } from '../../async/ports.ts';
import type { RunKey } from '../../model.ts';
import { type AsyncEndDeps, decideAsyncEvent } from './async-ends.ts';

export interface AcceptAsyncDeps extends AsyncEndDeps {
  store: AsyncRunStore;
  config: AsyncEndDeps['config'] & { shardCount: number };
}

export type AcceptResult =
  | { kind: 'accepted'; heartbeatDeadline: number }
  /** A worker's callback got there first (accepted or ended the run), or the claim was lost. */
  | { kind: 'ignored'; reason: string }
  /** The call outlived the max duration (or a cancel's grace): ended at once. */
  | { kind: 'expired' };

/**
 * Records the 202 the executor holding `leaseOwner`'s claim received at `now`, for the call that
 * started at `call.startedAt` (recorded with it, as a synchronous outcome records its call).
 */
export async function acceptAsyncRun(
  deps: AcceptAsyncDeps,
  key: RunKey,
  leaseOwner: string,
  now: number,
  call?: Pick<AsyncRunChanges, 'startedAt' | 'httpStatus' | 'enqueuedAt' | 'receivedAt' | 'slaSeconds'>,
): Promise<AcceptResult> {
  const context = { now, shardCount: deps.config.shardCount };
  const { answer } = await decideAsyncEvent(deps, key, now, (state) => {
    if (!state?.isAsync) return { answer: { kind: 'ignored', reason: 'the run is not async' } };
    const decision = decideAccepted(state, leaseOwner, context);
    return decision.write && call
      ? { ...decision, write: { ...decision.write, set: { ...decision.write.set, ...call } } }
      : decision;
  });
  if (answer.kind === 'accepted') return { kind: 'accepted', heartbeatDeadline: answer.heartbeatDeadline };
  if (answer.kind === 'expired') return { kind: 'expired' };
  return { kind: 'ignored', reason: answer.kind === 'ignored' ? answer.reason : answer.kind };
}
