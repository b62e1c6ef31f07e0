/**
 * The scanner's second duty: retries parked beyond the SQS delay limit (QUEUED runs in the sweep
 * index), sent once their due time is within reach of an SQS delay. Each swept run's `sweepAt` is
 * first moved forward with a conditional write, so racing scanners send it once, and a run whose
 * message is lost before its claim is found again later.
 *
 * Runs under a lease are not in the index: a claim takes the run out (a parked retry) or never puts
 * it in, and the executor hides the run's message only until the lease ends, so a dead executor's
 * message comes back by itself and the next claim takes the run over or records it as lost. A
 * RUNNING entry can only be one a claim made before that change; it is still sent, to the same end.
 */

import { allShards } from '../due-shard.ts';
import type { Run } from '../model.ts';
import type { RunDispatcher, RunRepository } from '../ports.ts';
import { reasonOf } from './job-faults.ts';

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
  /** Shards whose sweep failed this pass, with why (absent when none did); the others finished. */
  failedShards?: Array<{ shard: string; error: string }>;
}

/** Sweeps every shard once at `now`. One shard's failure never stops the others: it is reported in `failedShards`. */
export async function sweepRuns(deps: SweepDeps, now: number): Promise<SweepResult> {
  const perShard = await Promise.all(
    allShards(deps.config.shardCount).map(async (shard) => {
      try {
        return { shard, ...(await sweepShard(deps, shard, now)), error: undefined };
      } catch (error) {
        return { shard, found: 0, resent: 0, error: reasonOf(error) };
      }
    }),
  );
  const failedShards = perShard.flatMap(({ shard, error }) => (error === undefined ? [] : [{ shard, error }]));
  return {
    found: perShard.reduce((sum, s) => sum + s.found, 0),
    resent: perShard.reduce((sum, s) => sum + s.resent, 0),
    ...(failedShards.length > 0 ? { failedShards } : {}),
  };
}

async function sweepShard(deps: SweepDeps, shard: string, now: number): Promise<{ found: number; resent: number }> {
  const found = await deps.runs.findSweepable(shard, now, SWEEP_PAGE_SIZE);
  const toSend: Run[] = [];
  // One run whose sweep cannot be moved (a throttled write) waits for the next pass; the rest are sent.
  await Promise.allSettled(
    found.map(async (run) => {
      if (run.status !== 'RUNNING' && run.status !== 'QUEUED') return;
      const due = Math.max(run.scheduledFor, run.availableAt ?? 0);
      if (await deps.runs.rescheduleSweep(run, run.sweepAt, Math.max(now, due) + RESWEEP_AFTER_MS)) toSend.push(run);
    }),
  );
  await deps.dispatcher.dispatch(
    toSend.map(({ tenantId, jobId, scheduledFor, attempt, runId, availableAt }) => ({
      message: { tenantId, jobId, scheduledFor, attempt, runId },
      releaseAt: Math.max(scheduledFor, availableAt ?? 0),
    })),
  );
  return { found: found.length, resent: toSend.length };
}
