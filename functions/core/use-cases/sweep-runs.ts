/**
 * The scanner's second duty: sending the runs whose message never brought them to an executor.
 * Every run but the scanner's own (covered by its page's dispatch intent, swept by
 * sweep-intents.ts) enters the sweep index with the put that creates it (`sweepAt`: its release plus a
 * grace, see runs/send-runs.ts) and leaves it when it is claimed; so a run still there at
 * `sweepAt` is one whose writer died between put and send, whose send failed, or whose message
 * was lost, whatever wrote it (creation, trigger, re-drive, resume, retry). Retries parked beyond
 * the SQS delay limit wait there too, until their due time is within reach of an SQS delay.
 *
 * Each swept run's `sweepAt` is first moved forward with a conditional write, so racing scanners
 * send it once, and a run whose new message never comes either (a scanner that died between that
 * write and its send, a lost message) is found again: after the grace, then twice as long each
 * time, up to MAX_RESWEEP_INTERVAL_MS (a run that keeps coming back unclaimed, such as one of a
 * tenant held at its in-flight cap, costs a message now and then, not one per pass). A send that
 * fails puts the runs back where they were, for the next pass. Duplicate messages are harmless:
 * the claim is conditional.
 *
 * Runs under a lease are not in the index: the claim takes them out, and the executor hides the
 * run's message only until the lease ends, so a dead executor's message comes back by itself. A
 * RUNNING entry can only be one a claim made before that change; it is still sent, to the same end.
 */

import { allShards } from '../due-shard.ts';
import type { Run } from '../model.ts';
import type { RunDispatcher, RunRepository } from '../ports.ts';
import type { DispatchIntents } from '../runs/dispatch-intent.ts';
import { DEFAULT_SWEEP_GRACE_MS, dispatchRequestOf, releaseAtOf, sendRuns } from '../runs/send-runs.ts';
import { reasonOf } from './job-faults.ts';
import { sweepIntentShard } from './sweep-intents.ts';

/** The longest a swept run waits before it may be swept again if nothing picks it up. */
export const MAX_RESWEEP_INTERVAL_MS = 5 * 60_000;
export const SWEEP_PAGE_SIZE = 100;

export interface SweepDeps {
  runs: RunRepository;
  dispatcher: RunDispatcher;
  /** `sweepGraceMs`: the grace new runs enter the index with (SWEEP_GRACE_SECONDS). */
  config: { shardCount: number; sweepGraceMs?: number };
  /** The scanner's dispatch intents, swept beside the runs (sweep-intents.ts). */
  intents?: DispatchIntents;
}

/** When a run swept at `now` is looked at again: its release plus the grace, doubled for every earlier sweep. */
export function nextSweepAt(run: Run, now: number, graceMs: number): number {
  return Math.max(now, releaseAtOf(run)) + Math.min(MAX_RESWEEP_INTERVAL_MS, graceMs * 2 ** (run.sweeps ?? 0));
}

export interface SweepResult {
  found: number;
  resent: number;
  /** Shards whose sweep failed this pass, with why (absent when none did); the others finished. */
  failedShards?: Array<{ shard: string; error: string }>;
}

type Sweepable = Run & { sweepAt: number };

/** Sweeps every shard once at `now`. One shard's failure never stops the others: it is reported in `failedShards`. */
export async function sweepRuns(deps: SweepDeps, now: number): Promise<SweepResult> {
  const perShard = await Promise.all(
    allShards(deps.config.shardCount).map(async (shard) => {
      const { intents } = deps;
      // The runs' index and the intents are swept apart: one failing leaves the other's work done.
      const [runs, pages] = await Promise.allSettled([
        sweepShard(deps, shard, now),
        intents ? sweepIntentShard({ ...deps, intents }, shard, now) : { found: 0, resent: 0 },
      ]);
      const done = [runs, pages].flatMap((part) => (part.status === 'fulfilled' ? [part.value] : []));
      const errors = [runs, pages].flatMap((part) => (part.status === 'rejected' ? [reasonOf(part.reason)] : []));
      return {
        shard,
        found: done.reduce((sum, part) => sum + part.found, 0),
        resent: done.reduce((sum, part) => sum + part.resent, 0),
        error: errors.length === 0 ? undefined : errors.join('; '),
      };
    }),
  );
  const failedShards = perShard.flatMap(({ shard, error }) => (error === undefined ? [] : [{ shard, error }]));
  return {
    found: perShard.reduce((sum, s) => sum + s.found, 0),
    resent: perShard.reduce((sum, s) => sum + s.resent, 0),
    ...(failedShards.length > 0 ? { failedShards } : {}),
  };
}

/** One shard, page by page: swept runs leave the window, so re-querying from the start walks it. */
async function sweepShard(deps: SweepDeps, shard: string, now: number): Promise<{ found: number; resent: number }> {
  const total = { found: 0, resent: 0 };
  for (;;) {
    const found = await deps.runs.findSweepable(shard, now, SWEEP_PAGE_SIZE);
    const page = await sweepPage(deps, found, now);
    total.found += found.length;
    total.resent += page.resent;
    // A failed send put its runs back in the window: they wait for the next pass.
    if (!page.sent || page.resent === 0 || found.length < SWEEP_PAGE_SIZE) return total;
  }
}

async function sweepPage(deps: SweepDeps, found: Sweepable[], now: number) {
  const moved: Array<{ run: Sweepable; to: number }> = [];
  // One run whose sweep cannot be moved (a throttled write) waits for the next pass; the rest are sent.
  await Promise.allSettled(
    found.map(async (run) => {
      if (run.status !== 'RUNNING' && run.status !== 'QUEUED') return;
      const to = nextSweepAt(run, now, deps.config.sweepGraceMs ?? DEFAULT_SWEEP_GRACE_MS);
      if (await deps.runs.rescheduleSweep(run, run.sweepAt, to)) moved.push({ run, to });
    }),
  );
  const sent = await sendRuns(
    deps.dispatcher,
    moved.map(({ run }) => dispatchRequestOf(run, releaseAtOf(run))),
  );
  if (!sent) await Promise.all(moved.map(({ run, to }) => deps.runs.rescheduleSweep(run, to, run.sweepAt)));
  return { sent, resent: sent ? moved.length : 0 };
}
