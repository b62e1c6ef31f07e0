/**
 * The scanner's second duty: runs that need looking at again, from the sweep index.
 *  - A RUNNING run past its lease whose message is gone (its executor died and the message was
 *    deleted, expired or dead-lettered without a trace) is sent again: the executor's claim takes
 *    it over (at-least-once) or records it as `lost` (at-most-once).
 *  - A QUEUED retry parked beyond the SQS delay limit is sent once its due time is within reach.
 * Each swept run's `sweepAt` is first moved forward with a conditional write, so racing scanners
 * send it once, and a run whose message is lost again is found again later.
 */

import { dispatchDelaySeconds } from '../dispatch-delay.ts';
import { allShards } from '../due-shard.ts';
import type { Run } from '../model.ts';
import type { RunDispatcher, RunRepository } from '../ports.ts';

/** How long a swept run waits before it may be swept again if nothing picks it up. */
export const RESWEEP_AFTER_MS = 5 * 60_000;
export const SWEEP_PAGE_SIZE = 100;

export interface SweepDeps {
  runs: RunRepository;
  dispatcher: RunDispatcher;
  config: { shardCount: number };
}

export interface SweepResult {
  found: number;
  resent: number;
}

/** Sweeps every shard once at `now`. */
export async function sweepRuns(deps: SweepDeps, now: number): Promise<SweepResult> {
  const perShard = await Promise.all(
    allShards(deps.config.shardCount).map(async (shard) => {
      const found = await deps.runs.findSweepable(shard, now, SWEEP_PAGE_SIZE);
      const toSend: Run[] = [];
      await Promise.all(
        found.map(async (run) => {
          if (run.status !== 'RUNNING' && run.status !== 'QUEUED') return;
          const due = Math.max(run.scheduledFor, run.availableAt ?? 0);
          if (await deps.runs.rescheduleSweep(run, run.sweepAt, Math.max(now, due) + RESWEEP_AFTER_MS))
            toSend.push(run);
        }),
      );
      await deps.dispatcher.dispatch(
        toSend.map(({ tenantId, jobId, scheduledFor, attempt, runId, availableAt }) => ({
          message: { tenantId, jobId, scheduledFor, attempt, runId },
          delaySeconds: dispatchDelaySeconds(Math.max(scheduledFor, availableAt ?? 0), now),
        })),
      );
      return { found: found.length, resent: toSend.length };
    }),
  );
  return perShard.reduce((sum, s) => ({ found: sum.found + s.found, resent: sum.resent + s.resent }), {
    found: 0,
    resent: 0,
  });
}
