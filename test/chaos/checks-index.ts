/**
 * What every chaos check shares: the result shape, the indexes of the evidence (runs by
 * occurrence, calls by run, kills by the runs they held, plans by job id) and the small helpers.
 */
import type { Evidence, StoredRun } from './evidence.ts';
import type { CreatedJob } from './workload.ts';

export interface CheckResult {
  name: string;
  ok: boolean;
  numbers: string;
  /** Up to MAX_EXAMPLES offending cases, with run ids and times. */
  failures: string[];
}

export const MAX_EXAMPLES = 12;
export const TERMINAL = new Set(['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED', 'DEAD_LETTERED']);
/** The target stamps a call when its coordinator handles it, which may be just after the kill was sent. */
export const KILL_TOLERANCE_MS = 2_000;
/** A timer may fire a millisecond early; the executor's wait for `availableAt` rides on one. */
export const EARLY_TOLERANCE_MS = 5;

/** The Idempotency-Key the README promises: `<jobId>:<occurrence ms>`. */
export const documentedKey = (run: Pick<StoredRun, 'jobId' | 'scheduledFor'>) => `${run.jobId}:${run.scheduledFor}`;
export const iso = (ms: number | undefined) => (ms === undefined ? '-' : new Date(ms).toISOString().slice(11, 23));

export function groupBy<T>(items: T[], keyOf: (item: T) => string): Map<string, T[]> {
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
export type Index = ReturnType<typeof indexEvidence>;

export const maxAttemptsOf = (plan: CreatedJob | undefined, evidence: Evidence) =>
  plan?.delivery === 'at-most-once' ? 1 : evidence.retry.maxAttempts;

/** Why an occurrence is not finished, or undefined when its last attempt is terminal with no retry pending. */
export function unfinished(runs: StoredRun[] | undefined): string | undefined {
  if (!runs || runs.length === 0) return 'no run at all';
  const last = runs[runs.length - 1] as StoredRun;
  if (!TERMINAL.has(last.status)) return `attempt ${last.attempt} (${last.runId}) still ${last.status}`;
  if (last.nextAttemptAt !== undefined)
    return `attempt ${last.attempt} (${last.runId}) ${last.status} with a retry due ${iso(last.nextAttemptAt)} that was never created`;
  const gap = runs.findIndex((run, i) => run.attempt !== i + 1);
  if (gap >= 0) return `attempts are not 1..${runs.length}: ${runs.map((r) => r.attempt).join(',')}`;
  return undefined;
}

/** The first MAX_EXAMPLES failures, and how many more there were. */
export function examples(failures: string[]): string[] {
  return failures
    .slice(0, MAX_EXAMPLES)
    .concat(failures.length > MAX_EXAMPLES ? [`... ${failures.length - MAX_EXAMPLES} more`] : []);
}
