/**
 * "Chaos was applied": every other check passes for nothing if the faults did not happen, so
 * each kind of fault must have happened at least as often as the run's design makes certain,
 * scaled to the run (the kill schedule, the workload's size, the target's fault shares). The
 * floors are derived from the design numbers (evidence.design), never from what a run measured.
 */
import type { Fault } from './chaos-target.ts';
import { analyseDuplicates } from './checks-duplicates.ts';
import { type CheckResult, examples, type Index, indexEvidence, KILL_TOLERANCE_MS } from './checks-index.ts';
import type { Evidence } from './evidence.ts';
import type { Kill } from './fleet.ts';

export interface ChaosFloors {
  executorKills: number;
  killsHoldingClaimedRuns: number;
  repeatsExplainedByKills: number;
  atMostOnceLosses: number;
  retries: number;
  /** Calls the target must have served each fault to. */
  faults: Record<Exclude<Fault, 'none'>, number>;
}

/**
 * The least the design guarantees, halved where chance decides:
 *  - executor kills: the schedule kills one at least every `killEveryMs[1]` until `killUntilMs`;
 *  - kills that held claimed runs: half of those (the first kills may find an executor idle);
 *  - repeats a kill explains (an at-least-once call cut by the kill, made again by the takeover):
 *    one for every other guaranteed kill;
 *  - at-most-once runs lost to a kill: one (the aimed kill of executor-kills.ts makes it certain);
 *  - retries: each at-least-once attempt below maxAttempts fails with the target's fault share p,
 *    so an occurrence is expected to be retried p + p² + … + p^(maxAttempts-1) times; half of that;
 *  - faults served: half of each fault's share of the calls;
 * and at least one of each, however small the run.
 */
export function chaosFloors(evidence: Evidence, index: Index = indexEvidence(evidence)): ChaosFloors {
  const { design, retry } = evidence;
  const executorKills = Math.floor(design.killUntilMs / design.killEveryMs[1]);
  const atLeastOnce = [...index.planByJobId.values()]
    .filter((plan) => plan.delivery === 'at-least-once')
    .reduce((sum, plan) => sum + plan.occurrences.length, 0);
  const p = design.faults.http500 + design.faults.hang + design.faults.reset;
  let retriesPerOccurrence = 0;
  for (let k = 1; k < retry.maxAttempts; k++) retriesPerOccurrence += p ** k;
  const calls = evidence.calls.length;
  return {
    executorKills,
    killsHoldingClaimedRuns: Math.ceil(executorKills / 2),
    repeatsExplainedByKills: Math.ceil(executorKills / 2),
    atMostOnceLosses: 1,
    retries: Math.max(1, Math.floor((atLeastOnce * retriesPerOccurrence) / 2)),
    faults: {
      http500: Math.max(1, Math.floor((design.faults.http500 * calls) / 2)),
      hang: Math.max(1, Math.floor((design.faults.hang * calls) / 2)),
      reset: Math.max(1, Math.floor((design.faults.reset * calls) / 2)),
    },
  };
}

/** True when the killed executor held `runId` under a claim: the target saw its call, it was claimed before the kill, or it was lost. */
function heldClaimed(index: Index, kill: Kill, runId: string): boolean {
  const run = index.runsById.get(runId);
  const called = (index.callsByRun.get(runId) ?? []).some((call) => call.at <= kill.at + KILL_TOLERANCE_MS);
  return called || (run?.claimedAt ?? Number.POSITIVE_INFINITY) <= kill.at || run?.errorType === 'lost';
}

/** The chaos actually happened, as often as the design makes certain: otherwise every other check would pass for nothing. */
export function checkChaosHappened(evidence: Evidence, index: Index = indexEvidence(evidence)): CheckResult {
  const floors = chaosFloors(evidence, index);
  const faults = { http500: 0, hang: 0, reset: 0, none: 0 };
  for (const call of evidence.calls) faults[call.fault]++;
  const killsHoldingClaimed = index.executorKills.filter((kill) =>
    kill.heldRunIds.some((runId) => heldClaimed(index, kill, runId)),
  ).length;
  const heldAtKill = index.executorKills.reduce((sum, kill) => sum + kill.heldRunIds.length, 0);
  const explained = analyseDuplicates(evidence, index).reduce((sum, verdict) => sum + verdict.explained, 0);
  const atMostOnceLosses = evidence.runs.filter(
    (run) => run.errorType === 'lost' && index.planByJobId.get(run.jobId)?.delivery === 'at-most-once',
  ).length;
  const retries = evidence.runs.filter(
    (run) => run.attempt > 1 && index.planByJobId.get(run.jobId)?.delivery === 'at-least-once',
  ).length;
  const failures: string[] = [];
  const atLeast = (what: string, count: number, floor: number) => {
    if (count < floor) failures.push(`${count} ${what}, fewer than the ${floor} the design makes certain`);
  };
  atLeast('executor kills', index.executorKills.length, floors.executorKills);
  atLeast('executor kills holding claimed runs', killsHoldingClaimed, floors.killsHoldingClaimedRuns);
  atLeast('repeat calls explained by a kill', explained, floors.repeatsExplainedByKills);
  atLeast('at-most-once runs lost to a kill', atMostOnceLosses, floors.atMostOnceLosses);
  atLeast('retries (attempts after the first)', retries, floors.retries);
  for (const fault of ['http500', 'hang', 'reset'] as const)
    atLeast(`calls served ${fault}`, faults[fault], floors.faults[fault]);
  return {
    name: 'chaos was applied',
    ok: failures.length === 0,
    numbers:
      `${index.executorKills.length} executor SIGKILLs (>= ${floors.executorKills}), ${killsHoldingClaimed} holding claimed runs (>= ${floors.killsHoldingClaimedRuns}; ${heldAtKill} runs held in all); ` +
      `${explained} repeats explained by a kill (>= ${floors.repeatsExplainedByKills}); ${atMostOnceLosses} at-most-once lost (>= ${floors.atMostOnceLosses}); ${retries} retries (>= ${floors.retries}); ` +
      `target: ${faults.http500} x 500 (>= ${floors.faults.http500}), ${faults.hang} hangs (>= ${floors.faults.hang}), ${faults.reset} resets (>= ${floors.faults.reset}), ${faults.none} x 200`,
    failures: examples(failures),
  };
}
