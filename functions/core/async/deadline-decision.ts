/**
 * Which deadline, if any, has ended a run at `now`, and the scanner's decision for a run its
 * deadline index query found. Every other decision asks `passedDeadline` first: deadlines are
 * the truth whoever notices them (async-run.ts).
 *
 * When several deadlines have passed, the earliest ended the run; on a tie the cancel request
 * wins (the tenant asked), then the max duration (a heartbeat deadline equal to it was clamped to
 * it: heartbeat-decision.ts), then the heartbeat.
 */
import { isTerminal } from '../run-state.ts';
import type { AsyncDecision, AsyncEnd, AsyncRunState, DecisionContext } from './async-run.ts';
import { endWrite, reindexWrite } from './async-writes.ts';
import { cancelGraceEndOf, deadlineAtOf } from './deadline-index.ts';

/** The end a passed deadline gives the run at `now`, or undefined while none has passed (or it has ended already). */
export function passedDeadline(state: AsyncRunState, now: number): AsyncEnd | undefined {
  if (isTerminal(state.status)) return undefined;
  const candidates: Array<{ at: number | undefined; end: AsyncEnd }> = [
    { at: cancelGraceEndOf(state), end: { status: 'CANCELLED', errorType: 'cancelled' } },
    // Before the 202 is recorded the executor's lease bounds the call: no async deadline runs yet.
    ...(state.acceptedAt === undefined
      ? []
      : [
          { at: state.maxDurationDeadline, end: { status: 'TIMED_OUT', errorType: 'timeout' } as const },
          { at: state.heartbeatDeadline, end: { status: 'TIMED_OUT', errorType: 'heartbeat_timeout' } as const },
        ]),
  ];
  let earliest: { at: number; end: AsyncEnd } | undefined;
  for (const { at, end } of candidates) {
    if (at === undefined || now <= at) continue;
    if (earliest === undefined || at < earliest.at) earliest = { at, end };
  }
  return earliest?.end;
}

/**
 * The scanner's decision for a run found in the deadline index: end it when a deadline passed;
 * otherwise it is alive (answer `alive` with its next deadline: the entry it should have), and an
 * entry its heartbeats left early (async-writes.ts) is moved there.
 */
export function decideDeadlines(state: AsyncRunState, context: DecisionContext): AsyncDecision {
  if (isTerminal(state.status)) return { answer: { kind: 'ignored', reason: 'the run has ended' } };
  const end = passedDeadline(state, context.now);
  if (end) return { write: endWrite(state, end, context), answer: { kind: 'expired', end } };
  const deadlineAt = deadlineAtOf(state);
  const answer = deadlineAt === undefined ? ({ kind: 'alive' } as const) : ({ kind: 'alive', deadlineAt } as const);
  const reindex = reindexWrite(state, context);
  return reindex ? { write: reindex, answer } : { answer };
}
