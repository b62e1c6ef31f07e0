/**
 * A soft cancel (`POST /v1/runs/{runId}/cancel`, and a job's cancel for each of its async runs in
 * flight). A run no executor has called yet (QUEUED) ends CANCELLED at once, with the request's
 * `cancelRequestedAt`: there is no worker to tell. A RUNNING one records `cancelRequestedAt`: the next heartbeat answers `cancelRequested:
 * true`, and once `cancelGraceSeconds` have passed without a completion the run ends CANCELLED
 * (deadline-decision.ts; the grace end joins its deadline index entry). Asking again changes
 * nothing: the grace counts from the first request.
 */
import { isTerminal } from '../run-state.ts';
import type { AsyncDecision, AsyncRunState, DecisionContext } from './async-run.ts';
import { endWrite, runningWrite } from './async-writes.ts';
import { passedDeadline } from './deadline-decision.ts';

/** Decides a cancel request for the run in `state`. */
export function decideCancel(state: AsyncRunState, context: DecisionContext): AsyncDecision {
  if (isTerminal(state.status)) return { answer: { kind: 'refused', code: 'RUN_ENDED' } };
  if (state.status === 'QUEUED') {
    const end = { status: 'CANCELLED', errorType: 'cancelled' } as const;
    // The request is recorded with the end: it is what tells completion that the tenant cancelled
    // the occurrence, not an executor finding its job gone (complete-run.ts).
    const write = endWrite(state, end, context);
    return {
      write: { ...write, set: { ...write.set, cancelRequestedAt: context.now } },
      answer: { kind: 'cancelled' },
    };
  }
  const end = passedDeadline(state, context.now);
  if (end) return { write: endWrite(state, end, context), answer: { kind: 'refused', code: 'RUN_ENDED' } };
  if (state.cancelRequestedAt !== undefined) return { answer: { kind: 'cancel-requested', alreadyRequested: true } };
  return {
    write: runningWrite(state, { cancelRequestedAt: context.now }, context),
    answer: { kind: 'cancel-requested', alreadyRequested: false },
  };
}
