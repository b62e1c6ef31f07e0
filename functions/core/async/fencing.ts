/**
 * The fencing rule of callbacks: only the current attempt's token may heartbeat or complete.
 * Each attempt is its own run item, and a token names one (callback-token.ts); the adapter reads
 * the item the token names. That item must exist and be the token's (anything else is a token for
 * no run: RUN_NOT_FOUND, 404, the same answer a forged token gets). Whether it has ended is each
 * decision's own question (a repeat of the completion that ended it is still answered).
 */
import type { AsyncAnswer, AsyncRunState } from './async-run.ts';
import type { CallbackClaims } from './callback-token.ts';

/** The refusal for a token that names no async run it may act on, or undefined when `state` is the token's own run. */
export function fenceRefusal(
  state: AsyncRunState | undefined,
  claims: CallbackClaims,
): Extract<AsyncAnswer, { kind: 'refused' }> | undefined {
  if (
    state === undefined ||
    state.tenantId !== claims.tenantId ||
    state.jobId !== claims.jobId ||
    state.scheduledFor !== claims.scheduledFor
  )
    return { kind: 'refused', code: 'RUN_NOT_FOUND' };
  // Another attempt of the same occurrence: never this token's to act on.
  if (state.attempt !== claims.attempt) return { kind: 'refused', code: 'RUN_ENDED' };
  return undefined;
}
