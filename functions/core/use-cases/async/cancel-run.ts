/**
 * `POST /v1/runs/{runId}/cancel`, and a job's cancel for each of its async runs in flight: a soft
 * cancel (core/async/cancel-decision.ts). A run no executor has called yet ends CANCELLED at once;
 * an async run in flight is asked to stop (its next heartbeat answers `cancelRequested: true`)
 * and ends CANCELLED once its `cancelGraceSeconds` pass without a completion. A synchronous call
 * in progress cannot be stopped: it ends with its call (RUN_NOT_CANCELLABLE).
 */
import { decideCancel } from '../../async/cancel-decision.ts';
import type { AsyncRunStore } from '../../async/ports.ts';
import { NotFoundError, RunStateRefusal } from '../../errors.ts';
import type { Run, RunKey } from '../../model.ts';
import type { Clock, RunRepository } from '../../ports.ts';
import { runIdOf, runKeyOfId } from '../../run-id.ts';
import { type AsyncEndDeps, decideAsyncEvent } from './async-ends.ts';

export interface CancelRunDeps extends AsyncEndDeps {
  store: AsyncRunStore;
  runs: Pick<RunRepository, 'get'>;
  clock: Clock;
  config: AsyncEndDeps['config'] & { shardCount: number };
}

/** Asks the run to stop; answers the run as it stands after (CANCELLED, or RUNNING with `cancelRequestedAt`). */
export async function cancelRun(deps: CancelRunDeps, tenantId: string, runId: string): Promise<Run> {
  const key = runKeyOfId(tenantId, runId);
  if (!key) throw new NotFoundError(`run ${runId}`);
  await requestCancel(deps, key);
  const run = await deps.runs.get(key);
  if (!run) throw new NotFoundError(`run ${runId}`);
  return run;
}

/**
 * The cancel decision on one run; what it answered. Throws NotFoundError for no run, and
 * RunStateRefusal for a run that ended or a synchronous call in progress.
 */
export async function requestCancel(deps: CancelRunDeps, key: RunKey): Promise<'cancelled' | 'cancel-requested'> {
  const now = deps.clock.now();
  const { answer } = await decideAsyncEvent(deps, key, now, (state) => {
    if (!state) return { answer: { kind: 'refused', code: 'RUN_NOT_FOUND' } };
    if (state.status === 'RUNNING' && !state.isAsync) return { answer: { kind: 'ignored', reason: NOT_CANCELLABLE } };
    return decideCancel(state, { now, shardCount: deps.config.shardCount });
  });
  if (answer.kind === 'cancelled') return 'cancelled';
  if (answer.kind === 'cancel-requested') return 'cancel-requested';
  if (answer.kind === 'refused' && answer.code === 'RUN_NOT_FOUND') throw new NotFoundError(`run ${runIdOf(key)}`);
  if (answer.kind === 'ignored') throw new RunStateRefusal('RUN_NOT_CANCELLABLE', answer.reason);
  throw new RunStateRefusal('RUN_ENDED', 'the run has ended already');
}

const NOT_CANCELLABLE = 'a synchronous call in progress cannot be cancelled: the run ends with its call';

/** A job's cancel: every async run of it in flight is asked to stop, as a run cancel would. Best effort per run. */
export async function cancelAsyncRunsInFlight(
  deps: CancelRunDeps & { inFlight: (tenantId: string, jobId: string) => Promise<RunKey[]> },
  tenantId: string,
  jobId: string,
): Promise<number> {
  let asked = 0;
  for (const key of await deps.inFlight(tenantId, jobId)) {
    try {
      await requestCancel(deps, key);
      asked++;
    } catch {
      // Ended meanwhile, or one write failed: the others are still asked.
    }
  }
  return asked;
}
