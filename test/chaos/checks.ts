/**
 * The chaos run's verdict: pure functions from the evidence to one result per guarantee. Each
 * result says what was counted and, when it fails, names the first offending runs.
 */
import type { TargetCall } from './chaos-target.ts';
import { runKillChecks } from './checks-kills.ts';
import type { Evidence, StoredJob, StoredRun } from './evidence.ts';
import type { CreatedJob } from './workload.ts';

export interface CheckResult {
  name: string;
  ok: boolean;
  numbers: string;
  /** Up to MAX_EXAMPLES offending cases, with run ids and times. */
  failures: string[];
}

const MAX_EXAMPLES = 12;
const TERMINAL = new Set(['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED', 'DEAD_LETTERED']);
/** The target stamps a call when its coordinator handles it, which may be just after the kill was sent. */
export const KILL_TOLERANCE_MS = 2_000;
/** A timer may fire a millisecond early; the executor's wait for `availableAt` rides on one. */
export const EARLY_TOLERANCE_MS = 5;

/** The Idempotency-Key docs/architecture.md promises: `<jobId>:<occurrence ms>`. */
const documentedKey = (run: Pick<StoredRun, 'jobId' | 'scheduledFor'>) => `${run.jobId}:${run.scheduledFor}`;
const iso = (ms: number | undefined) => (ms === undefined ? '-' : new Date(ms).toISOString().slice(11, 23));

function groupBy<T>(items: T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/** Indexes shared by the checks. */
export function indexEvidence(evidence: Evidence) {
  const runsById = new Map(evidence.runs.map((run) => [run.runId, run]));
  const runsByOccurrence = groupBy(evidence.runs, documentedKey);
  for (const runs of runsByOccurrence.values()) runs.sort((a, b) => a.attempt - b.attempt);
  const callsByRun = groupBy(evidence.calls, (call) => call.runId);
  for (const calls of callsByRun.values()) calls.sort((a, b) => a.at - b.at);
  const executorKills = evidence.kills.filter((kill) => kill.role === 'executor');
  const killsHolding = new Map<string, number[]>();
  for (const kill of executorKills) {
    for (const runId of new Set(kill.heldRunIds))
      killsHolding.set(runId, [...(killsHolding.get(runId) ?? []), kill.at]);
  }
  const jobIdByName = new Map(evidence.jobs.map((job) => [job.name ?? '', job.jobId]));
  const planByJobId = new Map<string, CreatedJob>();
  const jobIdOfPlan = new Map<CreatedJob, string>();
  for (const plan of evidence.plans) {
    // By name too: a create the API answered with an error may still have made the job.
    const jobId = plan.jobId ?? jobIdByName.get(plan.name);
    if (!jobId) continue;
    planByJobId.set(jobId, plan);
    jobIdOfPlan.set(plan, jobId);
  }
  return { runsById, runsByOccurrence, callsByRun, killsHolding, planByJobId, jobIdOfPlan, executorKills };
}
type Index = ReturnType<typeof indexEvidence>;

const maxAttemptsOf = (plan: CreatedJob | undefined, evidence: Evidence) =>
  plan?.delivery === 'at-most-once' ? 1 : evidence.retry.maxAttempts;

/** Why an occurrence is not finished, or undefined when its last attempt is terminal with no retry pending. */
function unfinished(runs: StoredRun[] | undefined): string | undefined {
  if (!runs || runs.length === 0) return 'no run at all';
  const last = runs[runs.length - 1] as StoredRun;
  if (!TERMINAL.has(last.status)) return `attempt ${last.attempt} (${last.runId}) still ${last.status}`;
  if (last.nextAttemptAt !== undefined)
    return `attempt ${last.attempt} (${last.runId}) ${last.status} with a retry due ${iso(last.nextAttemptAt)} that was never created`;
  const gap = runs.findIndex((run, i) => run.attempt !== i + 1);
  if (gap >= 0) return `attempts are not 1..${runs.length}: ${runs.map((r) => r.attempt).join(',')}`;
  return undefined;
}

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
      notCreated++;
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
    const finished = plan.kind === 'once' ? ['COMPLETED', 'FAILED'] : ['COMPLETED'];
    if (job && finished.includes(job.status)) jobsFinished++;
    else failures.push(`JOB ${plan.name} (${jobId}) is ${job?.status ?? 'missing'}, expected ${finished.join(' or ')}`);
  }
  const jobs = evidence.plans.length - notCreated;
  return {
    name: 'every occurrence terminal (0 lost)',
    ok: failures.length === 0 && expected > 0,
    numbers: `${terminal}/${expected} occurrences terminal, ${expected - terminal} lost (${lostToScannerKill} put by the killed scan); ${jobsFinished}/${jobs} jobs finished${notCreated ? `; ${notCreated} jobs whose creation failed` : ''}`,
    failures: failures
      .slice(0, MAX_EXAMPLES)
      .concat(failures.length > MAX_EXAMPLES ? [`... ${failures.length - MAX_EXAMPLES} more`] : []),
  };
}

export interface DuplicateVerdict {
  runId: string;
  calls: TargetCall[];
  /** Repeat calls (after the first) that a kill explains. */
  explained: number;
  problems: string[];
}

/**
 * A duplicate is a further call with the same attempt run id (hence the same Idempotency-Key). It
 * is explained when the run was taken over (`recoveries` counts at least one takeover per repeat)
 * and, between each call and the next, an executor process that held the run's message was
 * SIGKILLed (the earlier call at most KILL_TOLERANCE_MS after the kill, the later one after it).
 */
export function analyseDuplicates(evidence: Evidence, index: Index = indexEvidence(evidence)): DuplicateVerdict[] {
  const verdicts: DuplicateVerdict[] = [];
  for (const [runId, calls] of index.callsByRun) {
    if (calls.length < 2) continue;
    const run = index.runsById.get(runId);
    const problems: string[] = [];
    const kills = [...(index.killsHolding.get(runId) ?? [])].sort((a, b) => a - b);
    let explained = 0;
    for (let i = 1; i < calls.length; i++) {
      const before = calls[i - 1] as TargetCall;
      const after = calls[i] as TargetCall;
      const k = kills.findIndex((at) => before.at <= at + KILL_TOLERANCE_MS && at <= after.at);
      if (k >= 0) {
        kills.splice(k, 1);
        explained++;
      } else {
        problems.push(
          `call at ${iso(after.at)} repeats the one at ${iso(before.at)} with no executor holding it killed in between`,
        );
      }
    }
    const recoveries = run?.recoveries ?? 0;
    if (recoveries < calls.length - 1) problems.push(`${calls.length} calls but recoveries = ${recoveries}`);
    if (problems.length > 0 && run) {
      problems.push(
        `run ${run.status}${run.errorType ? `/${run.errorType}` : ''}, due ${iso(run.scheduledFor)}, last claimed ${iso(run.claimedAt)} with lease to ${iso(run.leaseExpiresAt)}, recoveries ${recoveries}; calls ${calls.map((c) => `${iso(c.at)} (${c.fault}${c.callerHungUp ? ', caller hung up' : ''})`).join(', ')}`,
      );
    }
    if (!run) problems.push('no such run in the runs table');
    verdicts.push({ runId, calls, explained: problems.length === 0 ? explained : 0, problems });
  }
  return verdicts;
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
    failures: failures.slice(0, MAX_EXAMPLES),
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
    failures: failures.slice(0, MAX_EXAMPLES),
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
    failures: failures.slice(0, MAX_EXAMPLES),
  };
}

/**
 * Attempts follow the backoff policy. For attempts n and n+1 of an occurrence: the wait chosen
 * (nextAttemptAt - completedAt) lies in [0, min(maxDelay, initial * multiplier^(n-1))] (full
 * jitter; a Retry-After may lengthen it), attempt n+1 is released exactly then (availableAt), its
 * call never arrives before, and arrives within the wait plus `dispatchSlackMs`, plus one
 * visibility timeout for each time an executor holding it was killed. The numbers split the
 * lateness into the completion path (stream and handler: failed run done -> retry run created)
 * and the dispatch path (release -> call).
 */
export function checkBackoff(evidence: Evidence, index: Index = indexEvidence(evidence)): CheckResult {
  const failures: string[] = [];
  const { retry } = evidence;
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
      if (next.createdAt !== undefined) completionLag.push(next.createdAt - failed.completedAt);
      const call = index.callsByRun.get(next.runId)?.[0];
      if (!call) continue;
      const late = call.at - failed.nextAttemptAt;
      const kills = (index.killsHolding.get(next.runId) ?? []).filter((at) => at <= call.at).length;
      const allowed = evidence.dispatchSlackMs + kills * evidence.visibilityTimeoutMs;
      if (kills === 0) lateness.push(late);
      if (late < -EARLY_TOLERANCE_MS)
        failures.push(
          `${next.runId}: called at ${iso(call.at)}, ${-late} ms before its release ${iso(failed.nextAttemptAt)}`,
        );
      if (late > allowed)
        failures.push(`${next.runId}: called ${late} ms after its release (allowed ${allowed} ms, ${kills} kills)`);
    }
  }
  return {
    name: 'attempts follow the backoff policy',
    ok: failures.length === 0,
    numbers:
      `${pairs} retries, every chosen wait within its cap (longest ${(longestWaitShare * 100).toFixed(0)}% of it), none called early; ` +
      `release-to-call without a kill ${spread(lateness)} (slack ${evidence.dispatchSlackMs / 1000} s + ${evidence.visibilityTimeoutMs / 1000} s per kill); ` +
      `failed-run-done-to-retry-created ${spread(completionLag)}`,
    failures: failures.slice(0, MAX_EXAMPLES),
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
    failures: failures.slice(0, MAX_EXAMPLES),
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
    failures: failures.slice(0, MAX_EXAMPLES),
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
    failures: failures.slice(0, MAX_EXAMPLES),
  };
}

/** The chaos actually happened: otherwise every other check would pass for nothing. */
export function checkChaosHappened(evidence: Evidence, index: Index = indexEvidence(evidence)): CheckResult {
  const faults = { http500: 0, hang: 0, reset: 0, none: 0 };
  for (const call of evidence.calls) faults[call.fault]++;
  const heldAtKill = index.executorKills.reduce((sum, kill) => sum + kill.heldRunIds.length, 0);
  const takenOver = evidence.runs.filter((run) => (run.recoveries ?? 0) > 0).length;
  const lost = evidence.runs.filter((run) => run.errorType === 'lost').length;
  const failures: string[] = [];
  if (index.executorKills.length < 3) failures.push(`only ${index.executorKills.length} executor kills`);
  if (heldAtKill === 0) failures.push('no kill caught an executor holding runs');
  if (takenOver + lost === 0) failures.push('no run was taken over or lost after a kill');
  for (const fault of ['http500', 'hang', 'reset'] as const)
    if (faults[fault] === 0) failures.push(`no ${fault} served`);
  return {
    name: 'chaos was applied',
    ok: failures.length === 0,
    numbers: `${index.executorKills.length} executor SIGKILLs holding ${heldAtKill} runs; ${takenOver} runs taken over, ${lost} lost (at-most-once); target: ${faults.http500} x 500, ${faults.hang} hangs, ${faults.reset} resets, ${faults.none} x 200`,
    failures,
  };
}

/** Every check, in report order. */
export function runChecks(evidence: Evidence): CheckResult[] {
  const index = indexEvidence(evidence);
  return [
    checkChaosHappened(evidence, index),
    checkOccurrencesTerminal(evidence, index),
    checkCallsPerOccurrence(evidence, index),
    checkAtMostOnce(evidence, index),
    checkDuplicatesExplained(evidence, index),
    checkBackoff(evidence, index),
    checkScannerKill(evidence, index),
    checkCatchUpKill(evidence, index),
    checkUnsentRunsSwept(evidence, index),
    ...runKillChecks(evidence),
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
