/**
 * Turns due occurrences into runs and queue messages. Used by the scanner for every due job and
 * by job creation for jobs due within the horizon, so both paths share one protocol:
 *
 *  1. conditional put of each run (deterministic id: a second materializer gets "exists"), which
 *     also puts it in the sweep index (run-repository.ts);
 *  2. send the runs this call created to the dispatch queue, released at their due time;
 *  3. advance the job past what was materialized, conditioned on its version.
 *
 * A crash between 1 and 3 leaves the job in the due-index, so the next scan finds it again; the
 * runs it had put but not sent are the sweep's (sweep-runs.ts): found once their release plus the
 * grace has passed unclaimed, even when the next pass plans another window (a misfire catch-up
 * planned at another time) and never meets them again. The chaos test kills a scanner exactly
 * there. A failed send (step 2) is left to the sweep the same way, and the job still advances.
 */
import { planFiring } from '../fire-plan.ts';
import type { JobStatusCounts } from '../metrics/ports.ts';
import type { DispatchMessage, Run } from '../model.ts';
import type { DueJob, JobRepository, RunDispatcher, RunRepository } from '../ports.ts';
import { sendRuns } from '../runs/send-runs.ts';
import { completeIfExhausted } from './complete-exhausted.ts';
import { newRun } from './new-run.ts';

export interface MaterializeDeps {
  jobs: JobRepository;
  runs: RunRepository;
  dispatcher: RunDispatcher;
  config: { horizonMs: number; retentionDays: number; shardCount: number };
  /** Per-tenant job-status counters (monitoring): moved when a pass finds a schedule over. */
  jobCounts?: JobStatusCounts;
}

export interface MaterializeResult {
  runsCreated: number;
  messagesSent: number;
  jobsAdvanced: number;
  /** The jobs this call advanced, with what it wrote: the caller knows them without reading them back. */
  advanced: AdvancedJob[];
}

/** A job this call moved past the occurrences it materialized (its version went up by one). */
export interface AdvancedJob {
  jobId: string;
  nextFireAt?: number;
  materialized: number;
}

function messageOf(run: Run): DispatchMessage {
  const { tenantId, jobId, scheduledFor, attempt, runId } = run;
  return { tenantId, jobId, scheduledFor, attempt, runId };
}

/** Materializes every occurrence of `jobs` due up to now + horizon; returns what it did. */
export async function materializeOccurrences(
  deps: MaterializeDeps,
  jobs: DueJob[],
  now: number,
): Promise<MaterializeResult> {
  const until = now + deps.config.horizonMs;
  const planned = jobs.map((job) => ({ job, ...planFiring(job, now, until) }));

  const toSend: Run[] = [];
  let runsCreated = 0;
  await Promise.all(
    planned.flatMap(({ job, occurrences, nextFireAt }) =>
      occurrences.map(async (scheduledFor, i) => {
        // Nothing comes after the last occurrence of a plan that ends the schedule.
        const final = nextFireAt === undefined && i === occurrences.length - 1 && job.schedule.type !== 'once';
        const run = newRun(job, scheduledFor, 1, now, deps.config.retentionDays, final);
        // An existing run is another materializer's: it sends it, or the sweep does.
        if ((await deps.runs.createIfAbsent(run)).created) {
          runsCreated++;
          toSend.push(run);
        }
      }),
    ),
  );

  const sent = await sendRuns(
    deps.dispatcher,
    toSend.map((run) => ({ message: messageOf(run), releaseAt: run.scheduledFor })),
  );

  const advanced = await Promise.all(
    planned.map(async ({ job, occurrences, nextFireAt }): Promise<AdvancedJob[]> => {
      if (nextFireAt === job.nextFireAt) return [];
      const moved = await deps.jobs.advance(job, { nextFireAt, materialized: occurrences.length, now });
      if (!moved) return [];
      // A recurring schedule that ended with nothing left to fire (its last occurrences dropped by
      // the misfire policy after an outage) has no final run whose completion would end the job.
      if (nextFireAt === undefined && occurrences.length === 0 && job.schedule.type !== 'once') {
        await completeIfExhausted(deps, job.tenantId, job.jobId, now);
      }
      return [{ jobId: job.jobId, nextFireAt, materialized: occurrences.length }];
    }),
  );

  return {
    runsCreated,
    messagesSent: sent ? toSend.length : 0,
    jobsAdvanced: advanced.flat().length,
    advanced: advanced.flat(),
  };
}
