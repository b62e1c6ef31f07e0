/**
 * What `GET /v1/callbacks/{token}` answers a worker, and whether a retried call carries
 * `Chronos-Checkpoint: present`: the token's attempt, whether a cancel was requested, and the
 * latest checkpoint of the occurrence from any attempt up to the token's, so a retried worker
 * resumes where an earlier one stopped instead of starting over.
 *
 * "Latest" is the checkpoint recorded last (`checkpointAt`); on a tie, the later attempt's. Only
 * attempts up to the token's count: a stale worker never sees a newer attempt's progress as its own.
 */
import { isTerminal } from '../run-state.ts';
import type { AsyncRunRecord } from './apply-write.ts';
import type { CallbackClaims } from './callback-token.ts';
import { passedDeadline } from './deadline-decision.ts';
import { fenceRefusal } from './fencing.ts';

type CheckpointHolder = Pick<AsyncRunRecord, 'attempt' | 'checkpointJson' | 'checkpointAt'>;

export interface LatestCheckpoint {
  /** The attempt that recorded it. */
  attempt: number;
  checkpointJson: string;
  checkpointAt: number;
}

/** The latest checkpoint among `runs` (the occurrence's attempts, any order) up to attempt `upTo`. */
export function latestCheckpoint(runs: readonly CheckpointHolder[], upTo: number): LatestCheckpoint | undefined {
  let latest: LatestCheckpoint | undefined;
  for (const { attempt, checkpointJson, checkpointAt } of runs) {
    if (attempt > upTo || checkpointJson === undefined || checkpointAt === undefined) continue;
    if (
      latest === undefined ||
      checkpointAt > latest.checkpointAt ||
      (checkpointAt === latest.checkpointAt && attempt > latest.attempt)
    )
      latest = { attempt, checkpointJson, checkpointAt };
  }
  return latest;
}

/** True when a call of attempt `attempt` should carry `Chronos-Checkpoint: present` (an earlier attempt left one). */
export function hasEarlierCheckpoint(runs: readonly CheckpointHolder[], attempt: number): boolean {
  return latestCheckpoint(runs, attempt - 1) !== undefined;
}

export interface CallbackState {
  attempt: number;
  /** False once the run ended, or a deadline passed that no one recorded yet. */
  active: boolean;
  cancelRequested: boolean;
  heartbeatDeadline?: number;
  checkpoint?: LatestCheckpoint;
}

export type CallbackStateAnswer =
  | { ok: true; state: CallbackState }
  | { ok: false; code: 'RUN_NOT_FOUND' | 'RUN_ENDED' };

/**
 * The answer of the callback GET for `claims`, given the occurrence's runs (all its attempts the
 * store holds). The token's own run must be among them (RUN_NOT_FOUND otherwise); a token of an
 * older attempt is answered RUN_ENDED, as its heartbeats would be.
 */
export function callbackStateOf(
  claims: CallbackClaims,
  runs: readonly AsyncRunRecord[],
  now: number,
): CallbackStateAnswer {
  const run = runs.find((candidate) => candidate.attempt === claims.attempt);
  const refusal = fenceRefusal(run, claims);
  if (refusal || run === undefined)
    return { ok: false, code: refusal?.code === 'RUN_ENDED' ? 'RUN_ENDED' : 'RUN_NOT_FOUND' };
  if (runs.some((other) => other.attempt > claims.attempt)) return { ok: false, code: 'RUN_ENDED' };
  const checkpoint = latestCheckpoint(runs, claims.attempt);
  return {
    ok: true,
    state: {
      attempt: run.attempt,
      active: !isTerminal(run.status) && passedDeadline(run, now) === undefined,
      cancelRequested: run.cancelRequestedAt !== undefined,
      ...(run.heartbeatDeadline === undefined ? {} : { heartbeatDeadline: run.heartbeatDeadline }),
      ...(checkpoint === undefined ? {} : { checkpoint }),
    },
  };
}
