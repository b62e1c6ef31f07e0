/**
 * The checks of the kills added to the chaos run in issue 14: the completion handler killed
 * mid-batch, the dead-letter consumer killed holding the poison message, the API killed
 * mid-create, and the poison run dead-lettered then re-driven. Pure functions from the evidence,
 * like checks.ts; each says what it counted and names the first offending runs or jobs.
 */
import type { CheckResult } from './checks.ts';
import type { Evidence, StoredRun } from './evidence.ts';

const MAX_EXAMPLES = 12;
const TERMINAL = new Set(['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED', 'DEAD_LETTERED']);

const occurrenceOf = (run: Pick<StoredRun, 'jobId' | 'scheduledFor'>) => `${run.jobId}:${run.scheduledFor}`;

function index(evidence: Evidence) {
  const runsById = new Map(evidence.runs.map((run) => [run.runId, run]));
  const runsByOccurrence = new Map<string, StoredRun[]>();
  for (const run of evidence.runs) {
    const key = occurrenceOf(run);
    runsByOccurrence.set(key, [...(runsByOccurrence.get(key) ?? []), run]);
  }
  for (const runs of runsByOccurrence.values()) runs.sort((a, b) => a.attempt - b.attempt);
  return { runsById, runsByOccurrence };
}
type Index = ReturnType<typeof index>;

/**
 * Why the occurrence of `runId` is not finished: a missing run, a last attempt not terminal or
 * with a retry pending, a gap in the attempts, or `runId` itself decided a retry that was never
 * created. Undefined when it is finished.
 */
function unfinishedAfter(runId: string, { runsById, runsByOccurrence }: Index): string | undefined {
  const run = runsById.get(runId);
  if (!run) return `${runId} is not in the runs table`;
  const runs = runsByOccurrence.get(occurrenceOf(run)) ?? [];
  const last = runs[runs.length - 1] as StoredRun;
  if (!TERMINAL.has(last.status)) return `${runId}: attempt ${last.attempt} is still ${last.status}`;
  if (last.nextAttemptAt !== undefined) return `${runId}: attempt ${last.attempt} has a retry that was never created`;
  if (runs.some((r, i) => r.attempt !== i + 1)) return `${runId}: attempts ${runs.map((r) => r.attempt).join(',')}`;
  return undefined;
}

function killsOf(evidence: Evidence, role: 'completion' | 'dead-letter' | 'api') {
  const kills = evidence.kills.filter((kill) => kill.role === role);
  const min = evidence.minKills?.[role] ?? 1;
  const failures = kills.length < min ? [`${kills.length} ${role} kills, at least ${min} planned`] : [];
  return { kills, failures };
}

/** The completion handler was SIGKILLed mid-batch (as often as planned), and every run of a killed batch still ended. */
export function checkCompletionKills(evidence: Evidence, idx: Index = index(evidence)): CheckResult {
  const { kills, failures } = killsOf(evidence, 'completion');
  const held = [...new Set(kills.flatMap((kill) => kill.heldRunIds))];
  if (!kills.some((kill) => kill.heldRunIds.length > 0)) failures.push('no completion kill held a batch');
  for (const runId of held) {
    const why = unfinishedAfter(runId, idx);
    if (why) failures.push(`LOST after a completion kill: ${why}`);
  }
  return {
    name: 'completion handler killed mid-batch, nothing lost',
    ok: failures.length === 0,
    numbers: `${kills.length} completion SIGKILLs holding ${held.length} stream records' runs, every one's occurrence ended`,
    failures: failures.slice(0, MAX_EXAMPLES),
  };
}

/** The dead-letter consumer was SIGKILLed holding a batch, and every run of it still ended DEAD_LETTERED or otherwise terminal. */
export function checkDeadLetterKills(evidence: Evidence, idx: Index = index(evidence)): CheckResult {
  const { kills, failures } = killsOf(evidence, 'dead-letter');
  const held = [...new Set(kills.flatMap((kill) => kill.heldRunIds))];
  if (held.length === 0) failures.push('no dead-letter kill held a dead letter');
  for (const runId of held) {
    const run = idx.runsById.get(runId);
    if (!run) failures.push(`${runId}: held by the killed consumer, not in the runs table`);
    else if (!TERMINAL.has(run.status)) failures.push(`${runId}: held by the killed consumer, still ${run.status}`);
  }
  return {
    name: 'dead-letter consumer killed holding a dead letter, nothing lost',
    ok: failures.length === 0,
    numbers: `${kills.length} dead-letter SIGKILLs holding ${held.length} runs, ${held.filter((id) => idx.runsById.get(id)?.status === 'DEAD_LETTERED').length} ended DEAD_LETTERED`,
    failures: failures.slice(0, MAX_EXAMPLES),
  };
}

/**
 * The API was SIGKILLed mid-create (as often as planned); every job the workload created through
 * it exists exactly once (no create lost or silently dropped, none doubled by a retry), and each
 * create whose job was written but whose answer the kill swallowed was recovered by its client:
 * the retry with the same Idempotency-Key was answered with that job (`201 replayed`).
 */
export function checkApiKills(evidence: Evidence): CheckResult {
  const { kills, failures } = killsOf(evidence, 'api');
  const heldNames = kills.flatMap((kill) => kill.heldJobNames ?? []);
  if (heldNames.length === 0) failures.push('no API kill held a create');
  const jobsByName = new Map<string, number>();
  for (const job of evidence.jobs) jobsByName.set(job.name ?? '', (jobsByName.get(job.name ?? '') ?? 0) + 1);
  const creates = new Map((evidence.apiCreates ?? []).map((record) => [record.name, record]));
  const viaApi = evidence.plans.filter((plan) => plan.via === 'api');
  if (viaApi.length === 0) failures.push('no job was created through the API');
  for (const plan of viaApi) {
    const stored = jobsByName.get(plan.name) ?? 0;
    if (plan.createError) failures.push(`CREATE FAILED ${plan.name}: ${plan.createError}`);
    if (stored === 0) failures.push(`${plan.name}: created through the API, no such job stored`);
    if (stored > 1) failures.push(`${plan.name}: ${stored} jobs stored, a retried create doubled it`);
    if (!creates.has(plan.name)) failures.push(`${plan.name}: no record of its create`);
  }
  const unanswered = evidence.writtenUnanswered ?? [];
  if (unanswered.length === 0) failures.push('no API kill held a create whose job was written');
  for (const name of unanswered) {
    const tries = creates.get(name)?.tries ?? [];
    if (!tries.includes('201 replayed'))
      failures.push(
        `${name}: its job was written and the API killed before answering, yet no retry was answered with it (${tries.join(', ')})`,
      );
  }
  const retried = [...creates.values()].filter((record) => record.tries.length > 1).length;
  return {
    name: 'API killed mid-create, every create exactly once',
    ok: failures.length === 0,
    numbers: `${kills.length} API SIGKILLs holding ${heldNames.length} creates (${unanswered.length} written, unanswered); ${viaApi.length} jobs created through the API, ${retried} after a failed try`,
    failures: failures.slice(0, MAX_EXAMPLES),
  };
}

/**
 * The poison message: its run ended DEAD_LETTERED without the target being called, the re-drive
 * (POST /v1/runs/{runId}/retry) was accepted, and the new attempts ended terminal with the
 * target seeing them; the job finished.
 */
export function checkPoisonRedriven(evidence: Evidence, idx: Index = index(evidence)): CheckResult {
  const failures: string[] = [];
  const poison = evidence.poison;
  if (!poison)
    return {
      name: 'poison message dead-lettered and re-driven',
      ok: false,
      numbers: 'no poison case',
      failures: ['no poison case'],
    };
  const first = idx.runsById.get(poison.runId);
  const runs = first ? (idx.runsByOccurrence.get(occurrenceOf(first)) ?? []) : [];
  const redriven = runs.filter((run) => run.attempt > 1);
  const calls = evidence.calls.filter((call) => runs.some((run) => run.runId === call.runId));
  if (!first) failures.push(`${poison.runId} is not in the runs table`);
  else if (first.status !== 'DEAD_LETTERED') failures.push(`${poison.runId} ended ${first.status}, not DEAD_LETTERED`);
  if (poison.refusals === 0) failures.push('no executor ever received the poison message');
  if (calls.some((call) => call.runId === poison.runId))
    failures.push(`${poison.runId}: the target was called for the poison attempt`);
  if (!poison.redriveAnswers.includes(202))
    failures.push(`re-drive never accepted: ${poison.redriveAnswers.join(', ') || 'not tried'}`);
  if (poison.redrivenRunId && !redriven.some((run) => run.runId === poison.redrivenRunId))
    failures.push(`the re-drive answered ${poison.redrivenRunId}, which is not in the runs table`);
  if (redriven.length === 0) failures.push('no attempt after the dead-lettered one');
  else {
    const why = unfinishedAfter(poison.runId, idx);
    if (why) failures.push(`re-driven occurrence unfinished: ${why}`);
    if (calls.length === 0) failures.push('the target never saw the re-driven attempt');
  }
  const job = evidence.jobs.find((stored) => stored.jobId === poison.jobId);
  if (!job || !['COMPLETED', 'FAILED'].includes(job.status))
    failures.push(`job ${poison.jobId} is ${job?.status ?? 'missing'}`);
  return {
    name: 'poison message dead-lettered and re-driven',
    ok: failures.length === 0,
    numbers: `${poison.runId}: ${poison.refusals} refused receives, ${first?.status ?? 'missing'}; re-drive answers ${poison.redriveAnswers.join(', ') || '-'}; then ${redriven.map((run) => `${run.attempt}:${run.status}`).join(' ') || 'nothing'}, ${calls.length} calls`,
    failures: failures.slice(0, MAX_EXAMPLES),
  };
}

/** The checks of this file, in report order. */
export function runKillChecks(evidence: Evidence): CheckResult[] {
  const idx = index(evidence);
  return [
    checkCompletionKills(evidence, idx),
    checkDeadLetterKills(evidence, idx),
    checkApiKills(evidence),
    checkPoisonRedriven(evidence, idx),
  ];
}
