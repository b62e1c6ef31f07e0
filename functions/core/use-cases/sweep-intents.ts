/**
 * The sweep's share for the scanner's own runs: a dispatch intent still recorded at its `sweepAt`
 * belongs to a page whose send never happened (the scanner died between its puts and its send, or
 * SQS refused it) or whose removal failed. Every run of the intent's jobs in its time range that
 * is still QUEUED is sent, then the intent is removed (runs/dispatch-intent.ts).
 *
 * One intent never holds up the others: reading its runs or sending them may fail, and the intent
 * stays for the next pass while the rest are cleared. Racing sweeps may both send the same runs;
 * duplicate messages are harmless, the claim is conditional.
 */
import type { Run } from '../model.ts';
import type { RunDispatcher, RunRepository } from '../ports.ts';
import { type DispatchIntent, type DispatchIntents, jobsOf } from '../runs/dispatch-intent.ts';
import { dispatchRequestOf, releaseAtOf, sendRuns } from '../runs/send-runs.ts';

export const INTENT_PAGE_SIZE = 25;
const RUN_PAGE_SIZE = 100;

export interface IntentSweepDeps {
  intents: DispatchIntents;
  runs: RunRepository;
  dispatcher: RunDispatcher;
}

/** Sends the runs of one shard's abandoned intents; how many intents it found and runs it sent. */
export async function sweepIntentShard(
  deps: IntentSweepDeps,
  shard: string,
  now: number,
): Promise<{ found: number; resent: number }> {
  const total = { found: 0, resent: 0 };
  for (;;) {
    const due = await deps.intents.findDue(shard, now, INTENT_PAGE_SIZE);
    const swept = await Promise.allSettled(due.map((intent) => sweepIntent(deps, intent)));
    total.found += due.length;
    let cleared = 0;
    for (const result of swept) {
      if (result.status !== 'fulfilled') continue;
      cleared++;
      total.resent += result.value;
    }
    // Intents that stay (their runs could not be read or sent) would come first again: next pass.
    if (cleared < due.length || due.length < INTENT_PAGE_SIZE) return total;
  }
}

/** Sends the intent's QUEUED runs and removes it; how many it sent. Throws, keeping it, when it cannot. */
async function sweepIntent(deps: IntentSweepDeps, intent: DispatchIntent): Promise<number> {
  // First attempts only: those are what a scanner page puts. A later attempt in the range is a
  // retry with its own sweep entry, perhaps parked beyond SQS's reach, which must not be sent early.
  const found = (await Promise.all(jobsOf(intent).map((job) => queuedRunsOf(deps.runs, job, intent))))
    .flat()
    .filter((run) => run.attempt === 1);
  // Counted on the run, as the sweep index's sweeps are (history shows it; the chaos run checks it),
  // and only while still QUEUED: a run claimed since the listing is not sent again.
  const counted = await Promise.all(found.map((run) => deps.runs.countSweep(run)));
  const queued = found.filter((_, i) => counted[i]);
  if (
    !(await sendRuns(
      deps.dispatcher,
      queued.map((run) => dispatchRequestOf(run, releaseAtOf(run))),
    ))
  ) {
    throw new Error(`the runs of dispatch intent ${intent.id} could not be sent`);
  }
  await deps.intents.clear(intent);
  return queued.length;
}

/** The job's QUEUED runs scheduled within the intent's range, every page of them. */
async function queuedRunsOf(
  runs: RunRepository,
  job: { tenantId: string; jobId: string },
  range: Pick<DispatchIntent, 'from' | 'until'>,
): Promise<Run[]> {
  const found: Run[] = [];
  let cursor: string | undefined;
  do {
    const page = await runs.listByJob(job.tenantId, job.jobId, {
      status: 'QUEUED',
      from: range.from,
      to: range.until,
      limit: RUN_PAGE_SIZE,
      ...(cursor ? { cursor } : {}),
    });
    found.push(...page.items);
    cursor = page.cursor;
  } while (cursor);
  return found;
}
