/**
 * A heartbeat: proves the worker of the token's attempt alive, records its progress, and tells it
 * whether a cancel was requested. The new heartbeat deadline is now + heartbeatTimeoutSeconds,
 * never earlier than the one it replaces (clocks of two Lambdas may disagree a little) and never
 * later than the max-duration deadline: heartbeats keep a worker alive, not beyond its bound.
 *
 * A heartbeat that arrives before the executor recorded the 202 accepts the run itself (the
 * worker is evidently working; the executor's write then finds it accepted). One on a run no
 * executor has claimed (QUEUED) is refused with RUN_NOT_STARTED: no call was made that a worker
 * could be answering, and accepting it would leave a RUNNING run nobody called.
 */
import { isTerminal } from '../run-state.ts';
import { acceptanceOf } from './accept-decision.ts';
import type { AsyncDecision, AsyncRunState, DecisionContext } from './async-run.ts';
import { endWrite, runningWrite } from './async-writes.ts';
import type { CallbackClaims } from './callback-token.ts';
import { passedDeadline } from './deadline-decision.ts';
import { fenceRefusal } from './fencing.ts';
import type { Heartbeat } from './heartbeat-body.ts';

/** The heartbeat deadline after a heartbeat at `now`: later by the timeout, monotonic, within the max duration. */
export function extendedHeartbeatDeadline(
  state: Pick<AsyncRunState, 'heartbeatDeadline' | 'maxDurationDeadline' | 'settings'>,
  now: number,
): number {
  const extended = Math.max(state.heartbeatDeadline ?? now, now + state.settings.heartbeatTimeoutSeconds * 1000);
  return state.maxDurationDeadline === undefined ? extended : Math.min(extended, state.maxDurationDeadline);
}

/** Decides a heartbeat sent with a token for `claims`, on the run that token names (undefined when missing). */
export function decideHeartbeat(
  state: AsyncRunState | undefined,
  claims: CallbackClaims,
  heartbeat: Heartbeat,
  context: DecisionContext,
): AsyncDecision {
  const refusal = fenceRefusal(state, claims);
  if (refusal || state === undefined) return { answer: refusal ?? { kind: 'refused', code: 'RUN_NOT_FOUND' } };
  if (isTerminal(state.status)) return { answer: { kind: 'refused', code: 'RUN_ENDED' } };
  if (state.status !== 'RUNNING') return { answer: { kind: 'refused', code: 'RUN_NOT_STARTED' } };
  const { now } = context;
  const accepted = state.acceptedAt === undefined ? { ...state, ...acceptanceOf(state, now) } : state;
  const end = passedDeadline(accepted, now);
  if (end) return { write: endWrite(state, end, context), answer: { kind: 'refused', code: 'RUN_ENDED' } };
  const heartbeatDeadline = extendedHeartbeatDeadline(accepted, now);
  const changes = {
    ...(state.acceptedAt === undefined ? acceptanceOf(state, now) : {}),
    heartbeatAt: now,
    heartbeatDeadline,
    ...(heartbeat.progress === undefined ? {} : { progress: heartbeat.progress }),
    ...(heartbeat.message === undefined ? {} : { progressMessage: heartbeat.message }),
    ...(heartbeat.checkpointJson === undefined ? {} : { checkpointJson: heartbeat.checkpointJson, checkpointAt: now }),
  };
  return {
    write: runningWrite(state, changes, context),
    answer: { kind: 'heartbeat', cancelRequested: state.cancelRequestedAt !== undefined, heartbeatDeadline },
  };
}
