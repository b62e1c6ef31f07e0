/**
 * The three callback routes of an async run (`/v1/callbacks/{token}`, its `/heartbeat` and
 * `/complete`): the token is their only credential. It is opened first (forged, tampered or
 * ill-formed: INVALID_CALLBACK_TOKEN, nothing read), then the run it names is decided on
 * (core/async/) and written conditionally (decide-and-apply.ts). Only an async run takes
 * callbacks: a token naming any other is answered as a token for no run.
 */

import type { AsyncAnswer, AsyncDecision, DecisionContext } from '../../async/async-run.ts';
import { type CallbackState, callbackStateOf } from '../../async/callback-state.ts';
import { type CallbackClaims, openCallbackToken } from '../../async/callback-token.ts';
import type { Completion } from '../../async/completion-body.ts';
import { decideCompletion } from '../../async/completion-decision.ts';
import type { Heartbeat } from '../../async/heartbeat-body.ts';
import { decideHeartbeat } from '../../async/heartbeat-decision.ts';
import type { AsyncRunStore, CallbackKeys, StoredAsyncRun } from '../../async/ports.ts';
import { RunStateRefusal } from '../../errors.ts';
import type { Run } from '../../model.ts';
import type { Clock, RunRepository } from '../../ports.ts';
import { runIdOf } from '../../run-id.ts';
import { type AsyncEndDeps, decideAsyncEvent } from './async-ends.ts';

export interface CallbackDeps extends AsyncEndDeps {
  store: AsyncRunStore;
  keys: CallbackKeys;
  runs: Pick<RunRepository, 'get'>;
  clock: Clock;
  config: AsyncEndDeps['config'] & { shardCount: number };
}

const MESSAGES: Record<RunStateRefusal['code'], string> = {
  RUN_ENDED: 'this attempt has ended (completed, timed out, cancelled, or superseded by a newer attempt)',
  RUN_NOT_STARTED: 'this attempt has not been called yet',
  RUN_NOT_FOUND: 'no async run for this callback token',
  RUN_NOT_CANCELLABLE: 'the run cannot be cancelled',
  INVALID_CALLBACK_TOKEN: 'the callback token is not valid',
};

function refusal(code: RunStateRefusal['code']): RunStateRefusal {
  return new RunStateRefusal(code, MESSAGES[code]);
}

/** The claims of `token`, or a refusal; nothing is read for a token that does not open. */
export async function claimsOf(keys: CallbackKeys, token: string): Promise<CallbackClaims> {
  const opened = openCallbackToken(token, await keys.keys());
  if (!opened.ok) throw refusal('INVALID_CALLBACK_TOKEN');
  return opened.claims;
}

const asyncOnly = (state: StoredAsyncRun | undefined) => (state?.isAsync ? state : undefined);

function refused(answer: AsyncAnswer): never {
  throw refusal(answer.kind === 'refused' ? answer.code : 'RUN_NOT_FOUND');
}

/**
 * Opens the token, decides `decide` on the run it names (with the retry of an end the decision
 * makes) and settles that end's in-flight marker: what a heartbeat and a completion share.
 */
async function decideOnToken(
  deps: CallbackDeps,
  token: string,
  decide: (state: StoredAsyncRun | undefined, claims: CallbackClaims, context: DecisionContext) => AsyncDecision,
): Promise<{ claims: CallbackClaims; answer: AsyncAnswer }> {
  const claims = await claimsOf(deps.keys, token);
  const now = deps.clock.now();
  const context = { now, shardCount: deps.config.shardCount };
  // An event after a deadline ends the run (answered RUN_ENDED): its end is settled like any.
  const { answer } = await decideAsyncEvent(deps, claims, now, (state) => decide(asyncOnly(state), claims, context));
  return { claims, answer };
}

/** A heartbeat: the new deadline, and whether a cancel was requested. */
export async function heartbeatRun(
  deps: CallbackDeps,
  token: string,
  heartbeat: Heartbeat,
): Promise<{ cancelRequested: boolean; heartbeatDeadline: number }> {
  const { answer } = await decideOnToken(deps, token, (state, claims, context) =>
    decideHeartbeat(state, claims, heartbeat, context),
  );
  if (answer.kind !== 'heartbeat') refused(answer);
  return { cancelRequested: answer.cancelRequested, heartbeatDeadline: answer.heartbeatDeadline };
}

/** A completion: the run as it ended (the first completion's result for a repeat of it). */
export async function completeAsyncRun(deps: CallbackDeps, token: string, completion: Completion): Promise<Run> {
  const { claims, answer } = await decideOnToken(deps, token, (state, tokenClaims, context) =>
    decideCompletion(state, tokenClaims, completion, context),
  );
  if (answer.kind !== 'completed') refused(answer);
  const run = await deps.runs.get(claims);
  if (!run) throw refusal('RUN_NOT_FOUND'); // expired by TTL in between: as good as never there
  return run;
}

/** The callback GET: the attempt, whether a cancel was requested, the occurrence's latest checkpoint. */
export async function callbackState(deps: CallbackDeps, token: string): Promise<CallbackState & { runId: string }> {
  const claims = await claimsOf(deps.keys, token);
  // The error type is no part of the answer: dropped, as it may be any run's (model.ts).
  const runs = (await deps.store.occurrence(claims))
    .filter((run) => run.isAsync)
    .map(({ errorType: _errorType, ...run }) => run);
  const answer = callbackStateOf(claims, runs, deps.clock.now());
  if (!answer.ok) throw refusal(answer.code);
  return { ...answer.state, runId: runIdOf(claims) };
}
