/**
 * The chaos run's verdict: pure functions from the evidence to one result per guarantee. Each
 * result says what was counted and, when it fails, names the first offending runs. The checks of
 * the run records against the target's own log, and the chaos-applied floors, have files of their own.
 */
import { checkChaosHappened } from './checks-chaos-applied.ts';
import { analyseDuplicates } from './checks-duplicates.ts';
import {
  type CheckResult,
  documentedKey,
  EARLY_TOLERANCE_MS,
  examples,
  groupBy,
  type Index,
  indexEvidence,
  iso,
  maxAttemptsOf,
  unfinished,
} from './checks-index.ts';
import { runKillChecks } from './checks-kills.ts';
import { checkRecordsMatchTarget, checkRetryableFailuresRetried } from './checks-target-log.ts';
import { runWorkflowChecks, withWorkflowTasks } from './checks-workflows.ts';
import type { Evidence, StoredJob, StoredRun } from './evidence.ts';

export { checkChaosHappened } from './checks-chaos-applied.ts';
export { analyseDuplicates, type DuplicateVerdict } from './checks-duplicates.ts';
export { type CheckResult, EARLY_TOLERANCE_MS, indexEvidence, KILL_TOLERANCE_MS } from './checks-index.ts';
export { checkRecordsMatchTarget, checkRetryableFailuresRetried } from './checks-target-log.ts';
export { runWorkflowChecks, withWorkflowTasks } from './checks-workflows.ts';

/** What a lost run's job looks like: whether the scanners still consider it due. */
function jobState(job: StoredJob | undefined): string {
  if (!job) return 'job missing';
  const next =
    job.nextFireAt === undefined ? 'no nextFireAt (out of the due-index)' : `nextFireAt ${iso(job.nextFireAt)}`;
  return `job ${job.status} v${job.version ?? '?'}, ${job.occurrenceCount ?? '?'} materialized, ${next}`;
}

/** Every planned occurrence has runs, the last of which is terminal with no retry pending; every job has finished. */
export function checkOccurrencesTerminal(evidence: Evidence, index: Index = indexEvidence(evidence)): CheckResult {
  const failures: string[] = [];
  let expected = 0;
  let terminal = 0;
  let jobsFinished = 0;
  let notCreated = 0;
  let lostToScannerKill = 0;
  const killedScanCreated = new Set(evidence.scannerHold?.createdRunIds ?? []);
  const jobsById = new Map(evidence.jobs.map((job) => [job.jobId, job]));
  const runsByJob = groupBy(evidence.runs, (run) => run.jobId);
  for (const plan of evidence.plans) {
    const jobId = index.jobIdOfPlan.get(plan);
    if (!jobId) {
      // Every other check only sees the jobs that exist: a job never created must fail here.
      notCreated++;
      failures.push(
        `NOT CREATED ${plan.name} (${plan.kind}): ${plan.createError ?? 'no job id, and no stored job of that name'}`,
      );
      continue;
    }
    const wanted = new Set(plan.occurrences);
    const job = jobsById.get(jobId);
    for (const at of plan.occurrences) {
      expected++;
      const runs = index.runsByOccurrence.get(`${jobId}:${at}`);
      const why = unfinished(runs);
      if (!why) {
        terminal++;
        continue;
      }
      const byKilledScan = (runs ?? []).some((run) => killedScanCreated.has(run.runId));
      if (byKilledScan) lostToScannerKill++;
      failures.push(
        `LOST ${plan.name} (${plan.delivery}) occurrence ${iso(at)}: ${why}; ${jobState(job)}${byKilledScan ? '; put by the killed scan' : ''}`,
      );
    }
    const stray = (runsByJob.get(jobId) ?? []).filter((run) => !wanted.has(run.scheduledFor));
    for (const run of stray) failures.push(`UNPLANNED ${plan.name}: run ${run.runId} for ${iso(run.scheduledFor)}`);
    // A workflow's task item never finishes: its workflow runs do (checks-workflows.ts).
    if (plan.kind === 'workflow-task') continue;
    const finished = plan.kind === 'once' ? ['COMPLETED', 'FAILED'] : ['COMPLETED'];
    if (job && finished.includes(job.status)) jobsFinished++;
    else failures.push(`JOB ${plan.name} (${jobId}) is ${job?.status ?? 'missing'}, expected ${finished.join(' or ')}`);
  }
  const jobs = evidence.plans.filter((plan) => plan.kind !== 'workflow-task').length - notCreated;
  return {
    name: 'every occurrence terminal (0 lost)',
    ok: failures.length === 0 && expected > 0,
    numbers: `${terminal}/${expected} occurrences terminal, ${expected - terminal} lost (${lostToScannerKill} put by the killed scan); ${jobsFinished}/${jobs} jobs finished; ${notCreated} of ${evidence.plans.length} planned jobs not created`,
    failures: examples(failures),
  };
}

/** Calls per occurrence never exceed maxAttempts, once the duplicates a kill explains are set aside. */
export function checkCallsPerOccurrence(evidence: Evidence, index: Index = indexEvidence(evidence)): CheckResult {
  const explainedByRun = new Map(analyseDuplicates(evidence, index).map((v) => [v.runId, v.explained]));
  const failures: string[] = [];
  let occurrences = 0;
  let mostCalls = 0;
  let withExtra = 0;
  const byOccurrence = groupBy(evidence.calls, (call) => {
    const run = index.runsById.get(call.runId);
    return run ? documentedKey(run) : `unknown:${call.runId}`;
  });
  for (const [key, calls] of byOccurrence) {
    occurrences++;
    const run = index.runsById.get(calls[0]?.runId ?? '');
    const limit = maxAttemptsOf(run ? index.planByJobId.get(run.jobId) : undefined, evidence);
    const runIds = new Set(calls.map((call) => call.runId));
    const explained = [...runIds].reduce((sum, runId) => sum + (explainedByRun.get(runId) ?? 0), 0);
    mostCalls = Math.max(mostCalls, calls.length);
    if (explained > 0) withExtra++;
    const overAttempts = calls.filter((call) => call.attempt > limit);
    if (!run) failures.push(`call(s) for run ${calls[0]?.runId} that is not in the runs table`);
    if (overAttempts.length > 0)
      failures.push(`${key}: attempt ${overAttempts[0]?.attempt} called, maxAttempts ${limit}`);
    if (calls.length - explained > limit)
      failures.push(`${key}: ${calls.length} calls (${explained} explained by kills), maxAttempts ${limit}`);
  }
  return {
    name: 'calls per occurrence <= maxAttempts',
    ok: failures.length === 0,
    numbers: `${evidence.calls.length} calls to ${occurrences} occurrences; most calls to one occurrence ${mostCalls}; ${withExtra} occurrences with kill-explained repeats`,
    failures: examples(failures),
  };
}

/** At-most-once: never a second call for an occurrence, no retry, no takeover; a run lost to a kill ends FAILED/lost. */
export function checkAtMostOnce(evidence: Evidence, index: Index = indexEvidence(evidence)): CheckResult {
  const failures: string[] = [];
  let occurrences = 0;
  let called = 0;
  let lost = 0;
  for (const [jobId, plan] of index.planByJobId) {
    if (plan.delivery !== 'at-most-once') continue;
    for (const at of plan.occurrences) {
      occurrences++;
      const runs = index.runsByOccurrence.get(`${jobId}:${at}`) ?? [];
      const calls = runs.flatMap((run) => index.callsByRun.get(run.runId) ?? []);
      if (calls.length === 1) called++;
      if (calls.length > 1)
        failures.push(`${plan.name} ${iso(at)}: ${calls.length} calls at ${calls.map((c) => iso(c.at)).join(', ')}`);
      for (const run of runs) {
        if (run.attempt > 1) failures.push(`${run.runId}: an at-most-once occurrence was retried`);
        if ((run.recoveries ?? 0) > 0) failures.push(`${run.runId}: an at-most-once run was taken over`);
        if (run.errorType === 'lost') {
          lost++;
          if (run.status !== 'FAILED') failures.push(`${run.runId}: lost but ${run.status}`);
          if (!index.killsHolding.has(run.runId)) failures.push(`${run.runId}: lost, yet no killed executor held it`);
        }
      }
    }
  }
  return {
    name: '0 duplicate calls for at-most-once jobs',
    ok: failures.length === 0 && occurrences > 0,
    numbers: `${occurrences} at-most-once occurrences: ${called} called once, ${occurrences - called} never called; ${lost} ended FAILED/lost after a kill; 0 allowed twice`,
    failures: examples(failures),
  };
}

/** Every call carries the documented Idempotency-Key, and every duplicate call is explained by a kill. */
export function checkDuplicatesExplained(evidence: Evidence, index: Index = indexEvidence(evidence)): CheckResult {
  const failures: string[] = [];
  let mismatched = 0;
  for (const call of evidence.calls) {
    const run = index.runsById.get(call.runId);
    if (run && call.idempotencyKey !== documentedKey(run)) {
      mismatched++;
      failures.push(`${call.runId}: Idempotency-Key ${call.idempotencyKey}, expected ${documentedKey(run)}`);
    }
  }
  const verdicts = analyseDuplicates(evidence, index);
  const repeats = verdicts.reduce((sum, v) => sum + v.calls.length - 1, 0);
  const explained = verdicts.reduce((sum, v) => sum + v.explained, 0);
  for (const verdict of verdicts) {
    for (const problem of verdict.problems) failures.push(`${verdict.runId}: ${problem}`);
  }
  return {
    name: 'duplicates share the Idempotency-Key and are explained by a kill',
    ok: failures.length === 0,
    numbers: `${verdicts.length} runs called more than once, ${repeats} repeat calls, ${explained} explained by a kill; ${mismatched} key mismatches in ${evidence.calls.length} calls`,
    failures: examples(failures),
  };
}

/**
 * How late a retry's first call may arrive, from the design's numbers, on each of its two paths.
 *
 * Dispatch, from the moment the retry is due and exists — its release (`nextAttemptAt`), or its
 * creation when the completion path made it after its release (its message then goes at once, and
 * the sweep counts its grace from the creation: `sweepAtOf`). A retry's message is sent by the
 * completion handler with the backoff as SQS delay, and an executor calls at the release
 * millisecond; it can only be late along these paths:
 *  - its message never arrives (its send failed in the SQS outage, its writer died): it waits in
 *    the sweep index until then + sweep grace, and the next scan of any scanner (at most the
 *    longest scanner interval later) sends it with no delay;
 *  - an executor received its message and died before it had reported the batch (so no kill
 *    names it), or the receive's answer was lost as the emulator stopped: the message comes back
 *    one visibility timeout later;
 *  - the queue was unreachable (the outage): it is received once the emulator is back;
 * so the base allowance is the longest of these, plus one lease margin — the design's allowance
 * for a step's own latency (a scan pass's queries and send, a receive and claim).
 * Each kill of an executor recorded holding it adds one more return of its message: at most one
 * visibility timeout after it was received, when the killed claim's lease (timeout + margin) has
 * ended too, so the next claim takes it over.
 *
 * Completion, from the failed attempt's end to its retry's creation (runs stream → completion
 * handler): held to the same base allowance, and each kill of the completion handler while the
 * failed attempt waited in the stream adds as much as an executor's kill: the handler starts again
 * and reads the stream from its last checkpoint. (Counted as one path from the release, as it was,
 * a retry made late and then swept was held to a bound its sweep does not keep.)
 */
export function retryLatenessBound(evidence: Evidence): { baseMs: number; perKillMs: number } {
  const { design, visibilityTimeoutMs, sqsOutage } = evidence;
  const swept = design.sweepGraceMs + design.scannerIntervalMaxMs;
  const outage = sqsOutage ? sqsOutage.restartedAt - sqsOutage.stoppedAt : 0;
  return {
    baseMs: Math.max(swept, visibilityTimeoutMs, outage) + design.leaseMarginMs,
    perKillMs: Math.max(visibilityTimeoutMs, design.timeoutMs + design.leaseMarginMs),
  };
}

/**
 * Attempts follow the backoff policy. For attempts n and n+1 of an occurrence: the wait chosen
 * (nextAttemptAt - completedAt) lies in [0, min(maxDelay, initial * multiplier^(n-1))] (full
 * jitter; a Retry-After may lengthen it), attempt n+1 is released exactly then (availableAt), its
 * call never arrives before, and arrives within retryLatenessBound. The numbers split the
 * lateness into the completion path (stream and handler: failed run done -> retry run created)
 * and the dispatch path (due: release or a later creation -> call), each with its bound.
 */
export function checkBackoff(evidence: Evidence, index: Index = indexEvidence(evidence)): CheckResult {
  const failures: string[] = [];
  const { retry } = evidence;
  const bound = retryLatenessBound(evidence);
  let pairs = 0;
  let longestWaitShare = 0;
  const lateness: number[] = [];
  const completionLag: number[] = [];
  for (const runs of index.runsByOccurrence.values()) {
    for (let i = 1; i < runs.length; i++) {
      const failed = runs[i - 1] as StoredRun;
      const next = runs[i] as StoredRun;
      if (next.attempt !== failed.attempt + 1) continue;
      if (failed.status === 'DEAD_LETTERED') continue; // a re-drive by hand, not a retry (checks-kills.ts)
      pairs++;
      if (failed.nextAttemptAt === undefined || failed.completedAt === undefined) {
        failures.push(`${next.runId} exists, but ${failed.runId} decided no retry`);
        continue;
      }
      const capMs =
        Math.min(retry.maxDelaySeconds, retry.initialDelaySeconds * retry.multiplier ** (failed.attempt - 1)) * 1000;
      const retryAfterMs =
        failed.retryAfterSeconds === undefined ? 0 : Math.min(failed.retryAfterSeconds, retry.maxDelaySeconds) * 1000;
      const wait = failed.nextAttemptAt - failed.completedAt;
      longestWaitShare = Math.max(longestWaitShare, wait / capMs);
      if (wait < 0 || wait > Math.max(capMs, retryAfterMs))
        failures.push(`${failed.runId}: waits ${wait} ms before attempt ${next.attempt}, cap ${capMs} ms`);
      if (next.availableAt !== failed.nextAttemptAt)
        failures.push(
          `${next.runId}: availableAt ${iso(next.availableAt)} != nextAttemptAt ${iso(failed.nextAttemptAt)}`,
        );
      // A completion handler killed while the failure waited in the runs stream for its retry
      // restarts and reads the stream again; an executor killed holding the retry returns its
      // message once.
      if (next.createdAt !== undefined) {
        const completionKills = evidence.kills.filter(
          (kill) =>
            kill.role === 'completion' &&
            kill.at >= (failed.completedAt as number) &&
            kill.at <= (next.createdAt as number),
        ).length;
        const made = next.createdAt - failed.completedAt;
        const allowedToMake = bound.baseMs + completionKills * bound.perKillMs;
        if (completionKills === 0) completionLag.push(made);
        if (made > allowedToMake)
          failures.push(
            `${next.runId}: created ${made} ms after ${failed.runId} failed (allowed ${allowedToMake} ms, ${completionKills} completion kills)`,
          );
      }
      const call = index.callsByRun.get(next.runId)?.[0];
      if (!call) continue;
      if (call.at - failed.nextAttemptAt < -EARLY_TOLERANCE_MS)
        failures.push(
          `${next.runId}: called at ${iso(call.at)}, ${failed.nextAttemptAt - call.at} ms before its release ${iso(failed.nextAttemptAt)}`,
        );
      const dueFrom = Math.max(failed.nextAttemptAt, next.createdAt ?? failed.nextAttemptAt);
      const late = call.at - dueFrom;
      const kills = (index.killsHolding.get(next.runId) ?? []).filter((at) => at <= call.at).length;
      const allowed = bound.baseMs + kills * bound.perKillMs;
      if (kills === 0) lateness.push(late);
      if (late > allowed)
        failures.push(
          `${next.runId}: called ${late} ms after it was due (allowed ${allowed} ms, ${kills} kills; due at its ${dueFrom === failed.nextAttemptAt ? 'release' : 'creation, after its release'}; swept ${next.sweeps ?? 0} time(s))`,
        );
    }
  }
  return {
    name: 'attempts follow the backoff policy',
    ok: failures.length === 0,
    numbers:
      `${pairs} retries, every chosen wait within its cap (longest ${(longestWaitShare * 100).toFixed(0)}% of it), none called early; ` +
      `due-to-call (release, or a later creation) without a kill ${spread(lateness)}; ` +
      `failed-run-done-to-retry-created without a kill ${spread(completionLag)} ` +
      `(each allowed ${bound.baseMs / 1000} s + ${bound.perKillMs / 1000} s per kill)`,
    failures: examples(failures),
  };
}

/** p50/p95/max of a list of milliseconds, in seconds. */
function spread(values: number[]): string {
  if (values.length === 0) return 'n/a';
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) =>
    ((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0) / 1000).toFixed(1);
  return `p50 ${at(0.5)} s / p95 ${at(0.95)} s / max ${at(1)} s`;
}

/**
 * The scanner was SIGKILLed once mid-scan: after its scan had put runs and while it was sending
 * them, before the jobs were advanced. Every run that scan put must still finish.
 */
export function checkScannerKill(evidence: Evidence, index: Index = indexEvidence(evidence)): CheckResult {
  const kills = evidence.kills.filter((kill) => kill.role === 'scanner' && kill.reason === 'mid-scan');
  const failures: string[] = [];
  const kill = kills[0];
  if (kills.length !== 1) failures.push(`${kills.length} scanner kills, expected exactly 1`);
  if (kill && !kill.scanInProgress) failures.push('the scanner was not in a scan when it died');
  const created = evidence.scannerHold?.createdRunIds ?? [];
  if (created.length === 0) failures.push('the killed scan had put no runs');
  let finished = 0;
  for (const runId of created) {
    const run = index.runsById.get(runId);
    const why = run ? unfinished(index.runsByOccurrence.get(documentedKey(run))) : 'not in the runs table';
    if (why) failures.push(`LOST ${runId} (put by the killed scan): ${why}`);
    else finished++;
  }
  const hold = evidence.scannerHold;
  return {
    name: 'scanner killed mid-scan, nothing lost',
    ok: failures.length === 0,
    numbers:
      kill && hold
        ? `killed at ${iso(kill.at)} in scan ${hold.scan} (in progress: ${kill.scanInProgress}), after putting ${created.length} runs, while sending a batch of ${hold.heldRunIds.length}; ${finished}/${created.length} of their occurrences terminal`
        : 'no scanner kill',
    failures: examples(failures),
  };
}

/**
 * A scanner was SIGKILLed while sending the runs of a misfire catch-up (fire_all) pass, after
 * their puts, before the send and the job advance. Every run it put must still finish.
 */
export function checkCatchUpKill(evidence: Evidence, index: Index = indexEvidence(evidence)): CheckResult {
  const kills = evidence.kills.filter((kill) => kill.role === 'scanner' && kill.reason === 'catch-up');
  const holds = evidence.catchUpHolds ?? [];
  const failures: string[] = [];
  if (kills.length === 0 || holds.length === 0) failures.push('no scanner was killed in a catch-up pass');
  const catchUpJobs = new Set([...index.planByJobId].filter(([, plan]) => plan.kind === 'catch-up').map(([id]) => id));
  const created = [...new Set(holds.flatMap((hold) => hold.createdRunIds))];
  let finished = 0;
  for (const runId of created) {
    const run = index.runsById.get(runId);
    if (run && !catchUpJobs.has(run.jobId)) continue; // an ordinary run the same scan put
    const why = run ? unfinished(index.runsByOccurrence.get(documentedKey(run))) : 'not in the runs table';
    if (why) failures.push(`LOST ${runId} (put by the killed catch-up scan): ${why}`);
    else finished++;
  }
  if (finished === 0) failures.push('the killed catch-up scan had put no catch-up run');
  return {
    name: 'scanner killed in a catch-up pass, nothing lost',
    ok: failures.length === 0,
    numbers: `${kills.length} scanner(s) killed in a catch-up pass, after putting ${created.length} runs; ${finished} catch-up runs among them, their occurrences terminal`,
    failures: examples(failures),
  };
}

/**
 * Runs that went unsent — those of every dispatch send that failed (the SQS outage) and those a
 * killed scan had seen created — can only have been sent by the sweep: each was swept (`sweeps`)
 * and its occurrence ended terminal. And every run the sweep sent ended terminal.
 */
export function checkUnsentRunsSwept(evidence: Evidence, index: Index = indexEvidence(evidence)): CheckResult {
  const failures: string[] = [];
  const failedSends = new Set(evidence.unsentRunIds ?? []);
  const killedScans = [evidence.scannerHold, ...(evidence.catchUpHolds ?? [])].flatMap(
    (hold) => hold?.confirmedRunIds ?? [],
  );
  const unsent = new Set([...failedSends, ...killedScans]);
  if (evidence.sqsOutage && failedSends.size === 0) failures.push('the SQS outage failed no send');
  let swept = 0;
  for (const runId of unsent) {
    const run = index.runsById.get(runId);
    if (!run) {
      failures.push(`UNSENT ${runId}: not in the runs table`);
      continue;
    }
    const why = unfinished(index.runsByOccurrence.get(documentedKey(run)));
    if ((run.sweeps ?? 0) === 0)
      failures.push(`UNSENT ${runId} (${run.status}) was never swept${why ? `; ${why}` : ''}`);
    else if (why) failures.push(`UNSENT ${runId} was swept ${run.sweeps} time(s) but ${why}`);
    else swept++;
  }
  const allSwept = evidence.runs.filter((run) => (run.sweeps ?? 0) > 0);
  for (const run of allSwept) {
    const why = unfinished(index.runsByOccurrence.get(documentedKey(run)));
    if (why && !unsent.has(run.runId)) failures.push(`SWEPT ${run.runId} but ${why}`);
  }
  const outage = evidence.sqsOutage;
  return {
    name: 'runs left unsent were swept and ended terminal',
    ok: failures.length === 0 && unsent.size > 0,
    numbers: `${outage ? `SQS stopped ${((outage.restartedAt - outage.stoppedAt) / 1000).toFixed(1)} s; ` : ''}${failedSends.size} runs of failed sends, ${killedScans.length} put by killed scans: ${swept}/${unsent.size} swept and terminal; ${allSwept.length} runs swept in all`,
    failures: examples(failures),
  };
}

/**
 * Every check, in report order. The common checks see each workflow task planned as a job, its
 * occurrences those of the workflow runs whose rules start it (checks-workflows.ts).
 */
export function runChecks(recorded: Evidence): CheckResult[] {
  const evidence = withWorkflowTasks(recorded);
  const index = indexEvidence(evidence);
  return [
    checkChaosHappened(evidence, index),
    checkOccurrencesTerminal(evidence, index),
    checkRecordsMatchTarget(evidence, index),
    checkRetryableFailuresRetried(evidence, index),
    checkCallsPerOccurrence(evidence, index),
    checkAtMostOnce(evidence, index),
    checkDuplicatesExplained(evidence, index),
    checkBackoff(evidence, index),
    checkScannerKill(evidence, index),
    checkCatchUpKill(evidence, index),
    checkUnsentRunsSwept(evidence, index),
    ...runKillChecks(evidence),
    ...runWorkflowChecks(recorded),
  ];
}

/** The checks as a table, with the failures under it. */
export function formatChecks(results: CheckResult[]): string {
  const width = Math.max(...results.map((r) => r.name.length));
  const lines = ['', 'Chronos chaos checks', '-'.repeat(width + 12)];
  for (const result of results) {
    lines.push(`${result.ok ? 'PASS' : 'FAIL'}  ${result.name.padEnd(width)}  ${result.numbers}`);
  }
  for (const result of results.filter((r) => !r.ok)) {
    lines.push('', `FAILED: ${result.name}`, ...result.failures.map((f) => `  - ${f}`));
  }
  return lines.join('\n');
}
