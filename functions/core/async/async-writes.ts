/**
 * The two kinds of write an async decision makes: a change while the run stays RUNNING (its
 * deadline index entry recomputed from the state after the change), and its end (out of the index,
 * with the outcome's fields). Both are conditional on the state decided on (async-run.ts).
 */
import type { AsyncEnd, AsyncRunChanges, AsyncRunState, AsyncRunWrite, DecisionContext } from './async-run.ts';
import { DEADLINE_INDEX_ATTRIBUTES } from './async-run.ts';
import { deadlineIndexEntry } from './deadline-index.ts';

function conditionOf(state: AsyncRunState, leaseOwner?: string): AsyncRunWrite['condition'] {
  return { status: state.status, revision: state.revision, ...(leaseOwner === undefined ? {} : { leaseOwner }) };
}

/**
 * A write that keeps (or makes) the run RUNNING, with its deadline index entry as it stands after
 * — lazily: an entry already there and no later than the new earliest deadline is left where it
 * is (a heartbeat only pushes the deadline later), so the write touches the run item alone, not
 * the index (whose sort key would move: a delete and a put, two more write units). The deadline
 * pass moves such an entry when it comes due and finds the run alive (deadline-decision.ts). An
 * entry is never later than the run's earliest deadline, so no end is found late.
 */
export function runningWrite(
  state: AsyncRunState,
  changes: Omit<AsyncRunChanges, 'asyncRevision' | 'status' | 'deadlineShard' | 'deadlineAt'>,
  context: DecisionContext,
  leaseOwner?: string,
): AsyncRunWrite {
  const after = { ...state, ...changes };
  const entry = deadlineIndexEntry(after, context.shardCount);
  const keepEntry = entry !== undefined && state.deadlineAt !== undefined && state.deadlineAt <= entry.deadlineAt;
  return {
    condition: conditionOf(state, leaseOwner),
    set: { asyncRevision: state.revision + 1, status: 'RUNNING', ...changes, ...(keepEntry ? {} : entry) },
    remove: entry ? [] : DEADLINE_INDEX_ATTRIBUTES,
  };
}

/** The write that moves a live run's index entry, left early by its heartbeats, to its earliest deadline. */
export function reindexWrite(state: AsyncRunState, context: DecisionContext): AsyncRunWrite | undefined {
  const entry = deadlineIndexEntry(state, context.shardCount);
  if (!entry || state.deadlineAt === undefined || state.deadlineAt >= entry.deadlineAt) return undefined;
  return {
    condition: conditionOf(state),
    set: { asyncRevision: state.revision + 1, ...entry },
    remove: [],
  };
}

/** Extra fields of an end: what the worker sent with its completion. */
export type EndDetails = Pick<AsyncRunChanges, 'error' | 'outputJson' | 'completionDigest'>;

/** The write that ends the run: terminal status, outcome fields, out of the deadline index. */
export function endWrite(
  state: AsyncRunState,
  end: AsyncEnd,
  context: DecisionContext,
  details: EndDetails = {},
  leaseOwner?: string,
): AsyncRunWrite {
  const { now } = context;
  const set: AsyncRunChanges = {
    asyncRevision: state.revision + 1,
    status: end.status,
    completedAt: now,
    ...(state.claimedAt === undefined ? {} : { durationMs: Math.max(0, now - state.claimedAt) }),
    ...('errorType' in end ? { errorType: end.errorType, error: details.error ?? defaultErrorOf(end, state) } : {}),
    ...('retryable' in end ? { retryable: end.retryable } : {}),
    ...(end.status === 'SUCCEEDED' && details.error !== undefined ? { error: details.error } : {}),
    ...(details.outputJson === undefined ? {} : { outputJson: details.outputJson }),
    ...(details.completionDigest === undefined ? {} : { completionDigest: details.completionDigest }),
  };
  return { condition: conditionOf(state, leaseOwner), set, remove: DEADLINE_INDEX_ATTRIBUTES };
}

/** The run's `error` when the worker gave none: says which bound ended it. */
function defaultErrorOf(end: Exclude<AsyncEnd, { status: 'SUCCEEDED' }>, state: AsyncRunState): string {
  const { heartbeatTimeoutSeconds, maxDurationSeconds, cancelGraceSeconds } = state.settings;
  switch (end.errorType) {
    case 'heartbeat_timeout':
      return `no heartbeat within heartbeatTimeoutSeconds (${heartbeatTimeoutSeconds} s)`;
    case 'timeout':
      return `ran past maxDurationSeconds (${maxDurationSeconds} s)`;
    case 'cancelled':
      return state.acceptedAt === undefined && state.status === 'QUEUED'
        ? 'cancelled before it was called'
        : `cancelled; the worker did not complete within cancelGraceSeconds (${cancelGraceSeconds} s)`;
    case 'worker_failed':
      return 'the worker reported failure';
  }
}
