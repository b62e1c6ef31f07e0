/**
 * The executor's decision when the target answered 202: the run becomes an accepted async run,
 * RUNNING with a heartbeat deadline (now + heartbeatTimeoutSeconds) and a max-duration deadline
 * (the claim, i.e. the call's start, + maxDurationSeconds), in the deadline index.
 *
 * The claim must still be the executor's own (`leaseOwner` in the condition). A worker may have
 * been faster than this write: a completion already ended the run, or a heartbeat already
 * accepted it (heartbeat-decision.ts): then there is nothing to record (`ignored`), and the
 * executor must not write an outcome of its own either.
 */
import { isTerminal } from '../run-state.ts';
import type { AsyncDecision, AsyncRunState, DecisionContext } from './async-run.ts';
import { endWrite, runningWrite } from './async-writes.ts';
import { passedDeadline } from './deadline-decision.ts';

/** The deadlines of a run accepted at `now`: what both the 202 and a first heartbeat record. */
export function acceptanceOf(state: AsyncRunState, now: number) {
  const maxDurationDeadline = (state.claimedAt ?? now) + state.settings.maxDurationSeconds * 1000;
  const heartbeatDeadline = Math.min(now + state.settings.heartbeatTimeoutSeconds * 1000, maxDurationDeadline);
  return {
    acceptedAt: now,
    heartbeatDeadline,
    maxDurationDeadline,
    // An accepted run's executor is gone (its message deleted): a duplicate message must not take it over.
    leaseExpiresAt: maxDurationDeadline,
  };
}

/** Decides the 202 the executor holding `leaseOwner`'s claim received. */
export function decideAccepted(state: AsyncRunState, leaseOwner: string, context: DecisionContext): AsyncDecision {
  if (isTerminal(state.status)) return { answer: { kind: 'ignored', reason: 'the run has ended already' } };
  if (state.status !== 'RUNNING' || state.leaseOwner !== leaseOwner)
    return { answer: { kind: 'ignored', reason: 'the claim is no longer this executor’s' } };
  if (state.acceptedAt !== undefined)
    return { answer: { kind: 'ignored', reason: 'the worker’s heartbeat accepted the run already' } };
  const accepted = { ...state, ...acceptanceOf(state, context.now) };
  // A call that took longer than maxDurationSeconds, or a cancel whose grace ran out meanwhile.
  const end = passedDeadline(accepted, context.now);
  if (end) return { write: endWrite(state, end, context, {}, leaseOwner), answer: { kind: 'expired', end } };
  return {
    write: runningWrite(state, acceptanceOf(state, context.now), context, leaseOwner),
    answer: { kind: 'accepted', heartbeatDeadline: accepted.heartbeatDeadline },
  };
}
