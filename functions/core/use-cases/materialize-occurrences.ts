/**
 * Turns due occurrences into runs and queue messages. Used by the scanner for every due job and
 * by job creation for jobs due within the horizon, so both paths share one protocol:
 *
 *  1. conditional put of each run (deterministic id: a second materializer gets "exists"). Job
 *     creation, PATCH and resume put each run in the sweep index with it (run-repository.ts); the
 *     scanner first records one dispatch intent for the whole page (runs/dispatch-intent.ts) and
 *     puts its runs without a sweep entry: two writes per page instead of two per run;
 *  2. send the runs this call created to the dispatch queue, released at their due time, and
 *     once they are sent, remove the intent;
 *  3. advance the job past what was materialized, conditioned on its version.
 *
 * A crash between 1 and 3 leaves the job in the due-index, so the next scan finds it again; the
 * runs it had put but not sent are the sweep's (sweep-runs.ts, sweep-intents.ts): found once the
 * grace has passed, even when the next pass plans another window (a misfire catch-up planned at
 * another time) and never meets them again. The chaos test kills a scanner exactly there. A failed
 * send (step 2) is left to the sweep the same way (the intent stays), and the job still advances.
 *
 * One job never holds up the others: planning, run creation and the advance are isolated per job.
 * A job whose own data makes it fail (job-faults.ts: an instant that cannot be stored, a value
 * the store refuses) is quarantined: taken out of the due-index with the reason on the job. A job
 * that fails for any other reason (throttling, the network) is left as it is for this pass and
 * reported; the next pass tries it again.
 */
import { randomUUID } from 'node:crypto';
import { type FirePlan, planFiring, UnplannableJobError } from '../fire-plan.ts';
import type { JobStatusCounts } from '../metrics/ports.ts';
import type { Run } from '../model.ts';
import type { DueJob, JobRepository, RunDispatcher, RunRepository } from '../ports.ts';
import { type DispatchIntent, type DispatchIntents, intentOf } from '../runs/dispatch-intent.ts';
import { DEFAULT_SWEEP_GRACE_MS, dispatchRequestOf, sendRuns } from '../runs/send-runs.ts';
import { completeIfExhausted } from './complete-exhausted.ts';
import { completeIfFinalRunEnded } from './final-occurrence.ts';
import { isOwnFailure, reasonOf } from './job-faults.ts';
import { newRun } from './new-run.ts';
import { settleOneTimeJob } from './one-time-occurrence.ts';

export interface MaterializeDeps {
  jobs: JobRepository;
  runs: RunRepository;
  dispatcher: RunDispatcher;
  config: { horizonMs: number; retentionDays: number; shardCount: number; sweepGraceMs?: number };
  /** Per-tenant job-status counters (monitoring): moved when a pass finds a schedule over. */
  jobCounts?: JobStatusCounts;
  /**
   * The scanner's: with it, one dispatch intent covers a call's runs, which are put without a
   * sweep-index entry. Without it (one job's create, PATCH or resume), each run has its own entry.
   */
  intents?: DispatchIntents;
}

export interface MaterializeResult {
  runsCreated: number;
  messagesSent: number;
  jobsAdvanced: number;
  /** The jobs this call advanced, with what it wrote: the caller knows them without reading them back. */
  advanced: AdvancedJob[];
  /** Jobs this call took out of the due-index because their own data made them fail. */
  quarantined: JobFault[];
  /** Jobs that failed for another reason (transient): left due, tried again by the next pass. */
  failed: JobFault[];
}

/** A job this call moved past the occurrences it materialized (its version went up by one). */
export interface AdvancedJob {
  jobId: string;
  nextFireAt?: number;
  materialized: number;
}

/** A job that could not be materialized, and why. */
export interface JobFault {
  tenantId: string;
  jobId: string;
  reason: string;
}

type PlannedJob = { job: DueJob } & FirePlan;

/** Materializes every occurrence of `jobs` due up to now + horizon; returns what it did. */
export async function materializeOccurrences(
  deps: MaterializeDeps,
  jobs: DueJob[],
  now: number,
): Promise<MaterializeResult> {
  const until = now + deps.config.horizonMs;
  const ownFailures: Array<{ job: DueJob; error: unknown }> = [];
  const failed: JobFault[] = [];
  /** Sorts a job's failure: its own (to quarantine) or transient (left for the next pass). */
  const fault = (job: DueJob, error: unknown) => {
    if (isOwnFailure(error)) ownFailures.push({ job, error });
    else failed.push(faultOf(job, error));
  };

  const planned: PlannedJob[] = [];
  for (const job of jobs) {
    try {
      if (job.unreadable !== undefined) throw new UnplannableJobError(job.unreadable);
      planned.push({ job, ...planFiring(job, now, until) });
    } catch (error) {
      // Planning is pure: whatever it throws, the job's own data made it throw.
      ownFailures.push({ job, error });
    }
  }

  const intent = await recordIntent(deps, planned, now);
  if (intent.error !== undefined) {
    // Nothing was put: the jobs with runs to make stay due, for the next pass; the others go on.
    for (const plan of planned) if (plan.occurrences.length > 0) failed.push(faultOf(plan.job, intent.error));
    planned.splice(0, planned.length, ...planned.filter((plan) => plan.occurrences.length === 0));
  }
  const inSweepIndex = intent.recorded === undefined;
  const created = await Promise.all(planned.map((plan) => createRuns(deps, plan, now, inSweepIndex)));
  const toSend = created.flatMap((c) => c.toSend);
  // Runs of a job that failed half-way are sent too (or, should the send fail, swept).
  const sent = await sendRuns(
    deps.dispatcher,
    toSend.map((run) => dispatchRequestOf(run, run.scheduledFor)),
  );
  // Sent: the intent has nothing left to cover. Should removing it fail, the sweep sends its runs
  // again after the grace: duplicate messages, which the conditional claim makes harmless. A put
  // that failed may still have landed (a timeout after the write), unsent: the intent stays for it.
  const putsFailed = created.some((c) => c.error !== undefined);
  if (sent && !putsFailed && intent.recorded) await deps.intents?.clear(intent.recorded).catch(() => undefined);

  const advanced: AdvancedJob[] = [];
  await Promise.all(
    planned.map(async (plan, i) => {
      const runsError = created[i]?.error;
      if (runsError !== undefined) return fault(plan.job, runsError);
      let moved: AdvancedJob | undefined;
      try {
        moved = await advance(deps, plan, now);
      } catch (error) {
        return fault(plan.job, error);
      }
      if (!moved) return;
      advanced.push(moved);
      try {
        // Out of the due-index now: no later pass meets this job again, so a throttled read or
        // write here is tried again in place rather than left to the next pass.
        await withRetries(() => endIfExhausted(deps, plan, created[i]?.existed ?? [], now));
      } catch (error) {
        // Advanced already: nothing to quarantine, but the job may stay ACTIVE; say so.
        failed.push(faultOf(plan.job, error));
      }
    }),
  );

  const quarantined = await quarantineAll(deps, ownFailures, now, failed);
  return {
    runsCreated: created.reduce((sum, c) => sum + c.created, 0),
    messagesSent: sent ? toSend.length : 0,
    jobsAdvanced: advanced.length,
    advanced,
    quarantined,
    failed,
  };
}

/**
 * Records the dispatch intent of the planned runs, when the caller keeps intents and there are runs
 * to make. `recorded`: the intent covering them; `error`: it could not be written, so no run may be put.
 */
async function recordIntent(
  deps: MaterializeDeps,
  planned: PlannedJob[],
  now: number,
): Promise<{ recorded?: DispatchIntent; error?: unknown }> {
  if (!deps.intents) return {};
  const runs = planned.flatMap(({ job, occurrences }) =>
    occurrences.map((scheduledFor) => ({ tenantId: job.tenantId, jobId: job.jobId, scheduledFor })),
  );
  if (runs.length === 0) return {};
  const sweepGraceMs = deps.config.sweepGraceMs ?? DEFAULT_SWEEP_GRACE_MS;
  const intent = intentOf(runs, now, { shardCount: deps.config.shardCount, sweepGraceMs }, randomUUID());
  try {
    await deps.intents.record(intent);
    return { recorded: intent };
  } catch (error) {
    return { error };
  }
}

/** Creates the runs of one job's plan; what to send, and the first error if some could not be created. */
async function createRuns(
  deps: MaterializeDeps,
  { job, occurrences, nextFireAt }: PlannedJob,
  now: number,
  inSweepIndex: boolean,
): Promise<{ toSend: Run[]; created: number; existed: number[]; error?: unknown }> {
  let created = 0;
  const existed: number[] = [];
  const settled = await Promise.allSettled(
    occurrences.map(async (scheduledFor, i) => {
      // Nothing comes after the last occurrence of a plan that ends the schedule.
      const final = nextFireAt === undefined && i === occurrences.length - 1 && job.schedule.type !== 'once';
      const run = newRun(job, scheduledFor, 1, now, deps.config.retentionDays, final);
      // An existing run is another materializer's: it sends it, or the sweep does.
      if (!(await deps.runs.createIfAbsent(run, { inSweepIndex })).created) {
        existed.push(scheduledFor);
        return undefined;
      }
      created++;
      return run;
    }),
  );
  const toSend = settled.flatMap((s) => (s.status === 'fulfilled' && s.value ? [s.value] : []));
  const rejected = settled.find((s) => s.status === 'rejected');
  return { toSend, created, existed, ...(rejected ? { error: rejected.reason } : {}) };
}

/** Moves one job past its plan; the advanced job, or undefined when someone else moved it first. */
async function advance(
  deps: MaterializeDeps,
  { job, occurrences, nextFireAt }: PlannedJob,
  now: number,
): Promise<AdvancedJob | undefined> {
  if (nextFireAt === job.nextFireAt) return undefined;
  const moved = await deps.jobs.advance(job, { nextFireAt, materialized: occurrences.length, now });
  return moved ? { jobId: job.jobId, nextFireAt, materialized: occurrences.length } : undefined;
}

/**
 * After an advance that ended the schedule: completes a recurring job if nothing of it is left to
 * finish. A one-time job whose run already existed (its occurrence was put back in the due-index
 * by a resume that raced a scan, or a scanner died before its advance) is settled from that run's
 * latest attempt, as its completion may have come and gone while the job could not be finished.
 */
async function endIfExhausted(
  deps: MaterializeDeps,
  { job, occurrences, nextFireAt }: PlannedJob,
  existed: number[],
  now: number,
) {
  if (nextFireAt !== undefined) return;
  if (job.schedule.type === 'once') {
    const at = job.schedule.at;
    if (!existed.includes(at)) return;
    const [latest] = await deps.runs.latestRuns(job, at, 1);
    if (latest?.scheduledFor === at && !latest.triggered) await settleOneTimeJob(deps, latest, now);
    return;
  }
  const final = occurrences.at(-1);
  // A recurring schedule that ended with nothing left to fire (its last occurrences dropped by
  // the misfire policy after an outage) has no final run whose completion would end the job.
  if (final === undefined) await completeIfExhausted(deps, job.tenantId, job.jobId, now);
  // Its final run may have finished before this advance, when its completion could not end the job yet.
  else await completeIfFinalRunEnded(deps, { tenantId: job.tenantId, jobId: job.jobId, scheduledFor: final }, now);
}

/** Quarantines the jobs that failed on their own; those whose quarantine cannot be written go to `failed`. */
async function quarantineAll(
  deps: MaterializeDeps,
  ownFailures: Array<{ job: DueJob; error: unknown }>,
  now: number,
  failed: JobFault[],
): Promise<JobFault[]> {
  const quarantined: JobFault[] = [];
  await Promise.all(
    ownFailures.map(async ({ job, error }) => {
      const reason = reasonOf(error);
      try {
        // False: the job changed meanwhile (a PATCH, a pause); the next pass judges the new version.
        if (await deps.jobs.quarantine(job, reason, now)) quarantined.push(faultOf(job, error));
      } catch (quarantineError) {
        failed.push({ ...faultOf(job, error), reason: `${reason} (not quarantined: ${reasonOf(quarantineError)})` });
      }
    }),
  );
  return quarantined;
}

function faultOf(job: DueJob, error: unknown): JobFault {
  return { tenantId: job.tenantId, jobId: job.jobId, reason: reasonOf(error) };
}

/** Tries `work` up to three times, 100 ms then 400 ms apart, rethrowing the last failure. */
async function withRetries(work: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= 3 || isOwnFailure(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * 4 ** (attempt - 1)));
    }
  }
}
