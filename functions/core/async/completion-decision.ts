/**
 * A completion: the worker of the token's attempt reports the end of its work. The first
 * completion ends the run (SUCCEEDED, or FAILED with its `retryable` feeding the retry decision:
 * async-retry.ts); the same completion again answers with that first result (`replay`), any other
 * after the end is refused with RUN_ENDED (the run timed out, was cancelled, or ended otherwise).
 *
 * A completion may arrive before the executor recorded the 202 (the run still claimed, or even
 * QUEUED): it is accepted, and the executor's late write of the 202 then finds the run ended.
 *
 * After a cancel request, a `failed` completion ends the run CANCELLED (the worker stopped as
 * asked; never retried); a `succeeded` one still ends it SUCCEEDED: the work was done.
 */
import { isTerminal } from '../run-state.ts';
import type { AsyncDecision, AsyncEnd, AsyncRunState, DecisionContext } from './async-run.ts';
import { endWrite } from './async-writes.ts';
import type { CallbackClaims } from './callback-token.ts';
import type { Completion } from './completion-body.ts';
import { passedDeadline } from './deadline-decision.ts';
import { fenceRefusal } from './fencing.ts';

/** The end a completion gives a run in `state`. */
export function endOfCompletion(state: AsyncRunState, completion: Completion): AsyncEnd {
  if (completion.status === 'succeeded') return { status: 'SUCCEEDED' };
  if (state.cancelRequestedAt !== undefined) return { status: 'CANCELLED', errorType: 'cancelled' };
  return { status: 'FAILED', errorType: 'worker_failed', retryable: completion.retryable };
}

/** Decides a completion sent with a token for `claims`, on the run that token names (undefined when missing). */
export function decideCompletion(
  state: AsyncRunState | undefined,
  claims: CallbackClaims,
  completion: Completion,
  context: DecisionContext,
): AsyncDecision {
  const refusal = fenceRefusal(state, claims);
  if (refusal || state === undefined) return { answer: refusal ?? { kind: 'refused', code: 'RUN_NOT_FOUND' } };
  if (isTerminal(state.status)) {
    const replay = state.completionDigest !== undefined && state.completionDigest === completion.digest;
    return {
      answer: replay
        ? { kind: 'completed', replay: true, status: state.status as AsyncEnd['status'] }
        : { kind: 'refused', code: 'RUN_ENDED' },
    };
  }
  const end = passedDeadline(state, context.now);
  if (end) return { write: endWrite(state, end, context), answer: { kind: 'refused', code: 'RUN_ENDED' } };
  const ending = endOfCompletion(state, completion);
  const details = {
    completionDigest: completion.digest,
    ...(completion.outputJson === undefined ? {} : { outputJson: completion.outputJson }),
    ...(completion.error === undefined ? {} : { error: completion.error }),
  };
  return {
    write: endWrite(state, ending, context, details),
    answer: { kind: 'completed', replay: false, status: ending.status },
  };
}
