/**
 * Repeated calls of one attempt run (the same Idempotency-Key), and whether a kill explains each:
 * shared by the duplicate check and the chaos-applied floors.
 */
import type { TargetCall } from './chaos-target.ts';
import { type Index, indexEvidence, iso, KILL_TOLERANCE_MS } from './checks-index.ts';
import type { Evidence } from './evidence.ts';

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
