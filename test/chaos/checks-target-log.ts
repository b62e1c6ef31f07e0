/**
 * Chronos's run records checked against what the target itself saw. The run table is Chronos's
 * own account; the target's call log (chaos-target.ts records every call, and decides each run's
 * fault from its run id, so every call of one run meets the same fault) is the independent one.
 * A run recorded SUCCEEDED that the target never answered 2xx, an outcome for a call that never
 * happened, an at-least-once occurrence that ended without any call, or a retryable failure that
 * was not retried all fail here, whatever the run records say about themselves.
 */
import type { Fault, TargetCall } from './chaos-target.ts';
import { type CheckResult, examples, type Index, indexEvidence, iso, maxAttemptsOf, TERMINAL } from './checks-index.ts';
import type { Evidence, StoredRun } from './evidence.ts';

/** What the executor must record for a call that met each fault (chaos-target.ts, functions/core/use-cases/target-outcome.ts). */
const OUTCOME_OF_FAULT: Record<Fault, { status: string; errorType?: string }> = {
  none: { status: 'SUCCEEDED' },
  http500: { status: 'FAILED', errorType: 'http_5xx' },
  hang: { status: 'TIMED_OUT', errorType: 'timeout' },
  reset: { status: 'FAILED', errorType: 'connection' },
};
/** The error types the retry policy retries (functions/core/retry-policy.ts isRetryable; no 4xx here). */
const RETRYABLE_ERRORS = new Set(['timeout', 'connection', 'http_5xx']);

const describeCalls = (calls: TargetCall[]) =>
  calls.length === 0
    ? 'no call'
    : calls.map((c) => `${iso(c.at)} ${c.fault}${c.callerHungUp ? ' (caller hung up)' : ''}`).join(', ');
const outcome = (run: StoredRun) => `${run.status}${run.errorType ? `/${run.errorType}` : ''}`;

/**
 * What a one-time job must be once its occurrence has ended, judged by the latest attempt
 * (functions/core/use-cases/one-time-occurrence.ts verdictOf): COMPLETED only after a SUCCEEDED
 * attempt; FAILED after FAILED, TIMED_OUT, DEAD_LETTERED, or SKIPPED for a reason other than a pause.
 */
function oneTimeJobStatusOf(last: StoredRun): string | undefined {
  if (last.nextAttemptAt !== undefined || !TERMINAL.has(last.status)) return undefined;
  if (last.status === 'SUCCEEDED') return 'COMPLETED';
  if (last.status === 'CANCELLED' || (last.status === 'SKIPPED' && last.errorType === 'paused')) return undefined;
  return 'FAILED';
}

/** True when a killed executor held the run at about the time it was lost. */
const lostToAKill = (index: Index, run: StoredRun) => (index.killsHolding.get(run.runId) ?? []).length > 0;

/**
 * Every run of a planned job agrees with the target's log:
 *  - a run with calls ended as its fault says (none: SUCCEEDED; 500: FAILED/http_5xx; held past
 *    the timeout: TIMED_OUT/timeout; reset: FAILED/connection), or, at-most-once only, FAILED/lost
 *    after a kill of an executor holding it;
 *  - a SUCCEEDED run has a call the target answered 2xx to a caller still listening;
 *  - a run with no call never claims an outcome of one (SUCCEEDED, FAILED other than lost, TIMED_OUT);
 *  - `lost` only for at-most-once jobs;
 *  - every at-least-once occurrence was called at least once; an at-most-once one that never was
 *    ended FAILED/lost after a kill of an executor holding it;
 *  - a one-time job's final status matches its occurrence's last attempt.
 */
export function checkRecordsMatchTarget(evidence: Evidence, index: Index = indexEvidence(evidence)): CheckResult {
  const failures: string[] = [];
  let runsChecked = 0;
  let succeededConfirmed = 0;
  let occurrences = 0;
  let uncalledLost = 0;
  let jobsChecked = 0;
  const jobsById = new Map(evidence.jobs.map((job) => [job.jobId, job]));
  for (const [jobId, plan] of index.planByJobId) {
    const atMostOnce = plan.delivery === 'at-most-once';
    for (const at of plan.occurrences) {
      const runs = index.runsByOccurrence.get(`${jobId}:${at}`) ?? [];
      if (runs.length === 0) continue; // no run at all: the terminal check reports it
      occurrences++;
      let called = false;
      for (const run of runs) {
        runsChecked++;
        const calls = index.callsByRun.get(run.runId) ?? [];
        if (calls.length > 0) called = true;
        const where = `${plan.name} (${plan.delivery}) ${run.runId}`;
        if (run.errorType === 'lost') {
          if (!atMostOnce) failures.push(`${where}: ended lost, but only an at-most-once run may be`);
          continue; // at-most-once: checkAtMostOnce holds it to a kill
        }
        if (run.status === 'SUCCEEDED') {
          if (calls.some((call) => call.fault === 'none' && !call.callerHungUp)) succeededConfirmed++;
          else
            failures.push(`${where}: SUCCEEDED, but the target answered no call of it 2xx (${describeCalls(calls)})`);
          continue;
        }
        if (calls.length === 0) {
          if (['FAILED', 'TIMED_OUT'].includes(run.status))
            failures.push(`${where}: ${outcome(run)}, an outcome of a call the target never received`);
          continue;
        }
        const fault = (calls[0] as TargetCall).fault;
        const wanted = OUTCOME_OF_FAULT[fault];
        const matches = run.status === wanted.status && run.errorType === wanted.errorType;
        // A run still open has no outcome yet (the terminal check reports it); DEAD_LETTERED after a
        // call is no outcome of the call either: its message ran out of receives before the outcome was written.
        if (!matches && TERMINAL.has(run.status) && run.status !== 'DEAD_LETTERED')
          failures.push(`${where}: recorded ${outcome(run)}, but the target served ${fault} (${describeCalls(calls)})`);
      }
      if (!called) {
        const last = runs[runs.length - 1] as StoredRun;
        if (!atMostOnce)
          failures.push(
            `${plan.name} (at-least-once) occurrence ${iso(at)}: ended ${outcome(last)} without a single call (${runs.length} attempt(s), the last taken over ${last.recoveries ?? 0} time(s))`,
          );
        else if (last.errorType === 'lost' && lostToAKill(index, last)) uncalledLost++;
        else
          failures.push(
            `${plan.name} (at-most-once) occurrence ${iso(at)}: never called, ended ${outcome(last)}${last.errorType === 'lost' ? ' with no killed executor holding it' : ''}`,
          );
      }
      if (plan.kind === 'once') {
        const job = jobsById.get(jobId);
        const wanted = oneTimeJobStatusOf(runs[runs.length - 1] as StoredRun);
        if (wanted === undefined || !job) continue; // still open: the terminal check reports it
        jobsChecked++;
        if (job.status !== wanted)
          failures.push(
            `JOB ${plan.name} (${jobId}) is ${job.status}, but its last attempt ended ${outcome(runs[runs.length - 1] as StoredRun)}: expected ${wanted}`,
          );
      }
    }
  }
  return {
    name: "run records agree with the target's log",
    ok: failures.length === 0 && runsChecked > 0,
    numbers: `${runsChecked} runs of ${occurrences} occurrences against ${evidence.calls.length} calls: ${succeededConfirmed} SUCCEEDED, each answered 2xx; ${uncalledLost} at-most-once occurrences never called (lost to a kill); ${jobsChecked} one-time jobs' status matches their last attempt`,
    failures: examples(failures),
  };
}

/** True when the attempt failed in a way the retry policy retries: by its record, or by what the target served it. */
function failedRetryably(run: StoredRun, calls: TargetCall[]): boolean {
  if (run.status === 'SUCCEEDED' || !TERMINAL.has(run.status)) return false;
  if (run.errorType !== undefined && RETRYABLE_ERRORS.has(run.errorType)) return true;
  return calls.some((call) => call.fault !== 'none');
}

/**
 * Every at-least-once attempt below maxAttempts that failed retryably (500, held past the
 * timeout, connection reset) decided a retry (`nextAttemptAt`) and has its next attempt; no
 * attempt at maxAttempts decided one.
 */
export function checkRetryableFailuresRetried(evidence: Evidence, index: Index = indexEvidence(evidence)): CheckResult {
  const failures: string[] = [];
  let retryable = 0;
  let retried = 0;
  for (const [jobId, plan] of index.planByJobId) {
    if (plan.delivery === 'at-most-once') continue; // checkAtMostOnce: never retried
    const maxAttempts = maxAttemptsOf(plan, evidence);
    for (const at of plan.occurrences) {
      const runs = index.runsByOccurrence.get(`${jobId}:${at}`) ?? [];
      const byAttempt = new Map(runs.map((run) => [run.attempt, run]));
      for (const run of runs) {
        const calls = index.callsByRun.get(run.runId) ?? [];
        if (run.attempt >= maxAttempts) {
          if (run.nextAttemptAt !== undefined)
            failures.push(`${run.runId}: attempt ${run.attempt} of ${maxAttempts} decided a retry`);
          continue;
        }
        if (!failedRetryably(run, calls)) continue;
        retryable++;
        const next = byAttempt.get(run.attempt + 1);
        if (run.nextAttemptAt === undefined)
          failures.push(
            `${plan.name} ${run.runId}: attempt ${run.attempt} of ${maxAttempts} ended ${outcome(run)} (${describeCalls(calls)}) and decided no retry`,
          );
        else if (!next)
          failures.push(
            `${plan.name} ${run.runId}: retry due ${iso(run.nextAttemptAt)} after ${outcome(run)}, but attempt ${run.attempt + 1} was never created`,
          );
        else retried++;
      }
    }
  }
  return {
    name: 'every retryable failure below maxAttempts retried',
    ok: failures.length === 0,
    numbers: `${retryable} at-least-once attempts below maxAttempts failed retryably; ${retried} have their next attempt`,
    failures: examples(failures),
  };
}
