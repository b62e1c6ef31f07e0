/**
 * The chaos checks on small hand-made histories: each guarantee passes on a clean history and
 * fails on the violation it exists to catch, so a green chaos run means something.
 */
import { describe, expect, it } from 'vitest';
import type { TargetCall } from './chaos-target.ts';
import {
  checkAtMostOnce,
  checkBackoff,
  checkCallsPerOccurrence,
  checkCatchUpKill,
  checkChaosHappened,
  checkDuplicatesExplained,
  checkOccurrencesTerminal,
  checkScannerKill,
  checkUnsentRunsSwept,
} from './checks.ts';
import type { Evidence, StoredRun } from './evidence.ts';
import type { Kill } from './fleet.ts';
import type { CreatedJob } from './workload.ts';

const T = 1_000_000;
const JOB = 'J1';
const run = (attempt: number, fields: Partial<StoredRun> = {}): StoredRun => ({
  runId: `${JOB}_${T}_${attempt}`,
  jobId: JOB,
  scheduledFor: T,
  attempt,
  status: 'SUCCEEDED',
  ...fields,
});
const call = (attempt: number, at: number, fields: Partial<TargetCall> = {}): TargetCall => ({
  at,
  path: '/chaos',
  idempotencyKey: `${JOB}:${T}`,
  runId: `${JOB}_${T}_${attempt}`,
  attempt,
  fault: 'none',
  callerHungUp: false,
  ...fields,
});
const kill = (at: number, heldRunIds: string[], fields: Partial<Kill> = {}): Kill => ({
  at,
  role: 'executor',
  slot: 0,
  pid: 1,
  heldRunIds,
  scanInProgress: false,
  reason: 'random',
  ...fields,
});

/** One at-least-once job whose only occurrence failed once (500) and then succeeded. */
function history(overrides: Partial<Evidence> = {}, delivery: CreatedJob['delivery'] = 'at-least-once'): Evidence {
  const plan: CreatedJob = {
    name: 'chaos-once-0',
    kind: 'once',
    delivery,
    createAtMs: 0,
    dueAfterMs: 0,
    jobId: JOB,
    occurrences: [T],
  };
  return {
    plans: [plan],
    retry: { maxAttempts: 3, initialDelaySeconds: 1, maxDelaySeconds: 4, multiplier: 2 },
    jobs: [{ jobId: JOB, name: plan.name, status: 'COMPLETED' }],
    runs: [
      run(1, { status: 'FAILED', completedAt: T + 100, nextAttemptAt: T + 600 }),
      run(2, { availableAt: T + 600, createdAt: T + 300, completedAt: T + 900 }),
    ],
    calls: [call(1, T + 5, { fault: 'http500' }), call(2, T + 700)],
    kills: [],
    dispatchSlackMs: 2_000,
    visibilityTimeoutMs: 10_000,
    ...overrides,
  };
}

describe('chaos checks', () => {
  it('pass on a clean history of a retried occurrence', () => {
    const evidence = history();
    for (const check of [checkOccurrencesTerminal, checkCallsPerOccurrence, checkDuplicatesExplained, checkBackoff]) {
      expect(check(evidence).failures).toEqual([]);
    }
  });

  it('report an occurrence whose last attempt never finished, and a job left active', () => {
    const base = history();
    const evidence = history({
      runs: [base.runs[0] as StoredRun, run(2, { status: 'QUEUED', availableAt: T + 600 })],
      jobs: [{ jobId: JOB, name: 'chaos-once-0', status: 'ACTIVE', version: 2, occurrenceCount: 1 }],
    });

    const result = checkOccurrencesTerminal(evidence);

    expect(result.ok).toBe(false);
    expect(result.numbers).toContain('0/1 occurrences terminal, 1 lost');
    expect(result.failures[0]).toContain(`attempt 2 (${JOB}_${T}_2) still QUEUED`);
    expect(result.failures[1]).toContain('is ACTIVE');
  });

  it('report a retry that was decided but never created, and an occurrence with no run at all', () => {
    const decidedOnly = history({ runs: [run(1, { status: 'FAILED', completedAt: T, nextAttemptAt: T + 500 })] });
    const none = history({ runs: [], calls: [] });

    expect(checkOccurrencesTerminal(decidedOnly).failures[0]).toContain('never created');
    expect(checkOccurrencesTerminal(none).failures[0]).toContain('no run at all');
  });

  it('explain a repeated call only by a kill of an executor holding the run, between the calls, with a takeover', () => {
    const repeated = { calls: [...history().calls, call(2, T + 20_000)] };
    const runs = (recoveries: number) => [history().runs[0] as StoredRun, run(2, { ...history().runs[1], recoveries })];

    const unexplained = checkDuplicatesExplained(history({ ...repeated, runs: runs(1) }));
    const explained = checkDuplicatesExplained(
      history({ ...repeated, runs: runs(1), kills: [kill(T + 800, [`${JOB}_${T}_2`])] }),
    );
    const killedElsewhere = checkDuplicatesExplained(
      history({ ...repeated, runs: runs(1), kills: [kill(T + 800, ['another-run'])] }),
    );
    const noTakeover = checkDuplicatesExplained(
      history({ ...repeated, runs: runs(0), kills: [kill(T + 800, [`${JOB}_${T}_2`])] }),
    );

    expect(unexplained.ok).toBe(false);
    expect(explained.failures).toEqual([]);
    expect(explained.numbers).toContain('1 explained by a kill');
    expect(killedElsewhere.ok).toBe(false);
    expect(noTakeover.failures[0]).toContain('recoveries = 0');
  });

  it('report a call whose Idempotency-Key is not <jobId>:<occurrence>', () => {
    const evidence = history({ calls: [call(1, T + 5), call(2, T + 700, { idempotencyKey: `${JOB}:${T}:2` })] });

    expect(checkDuplicatesExplained(evidence).failures[0]).toContain('Idempotency-Key');
  });

  it('count calls per occurrence against maxAttempts, minus the repeats a kill explains', () => {
    const fourCalls = [call(1, T), call(2, T + 700), call(3, T + 2_000), call(3, T + 30_000)];
    const runs = [
      run(1, { status: 'FAILED', completedAt: T + 100, nextAttemptAt: T + 600 }),
      run(2, { status: 'FAILED', availableAt: T + 600, completedAt: T + 800, nextAttemptAt: T + 1_900 }),
      run(3, { availableAt: T + 1_900, recoveries: 1 }),
    ];

    const unexplained = checkCallsPerOccurrence(history({ calls: fourCalls, runs }));
    const explained = checkCallsPerOccurrence(
      history({ calls: fourCalls, runs, kills: [kill(T + 3_000, [`${JOB}_${T}_3`])] }),
    );

    expect(unexplained.failures[0]).toContain('4 calls (0 explained by kills), maxAttempts 3');
    expect(explained.failures).toEqual([]);
  });

  it('allow an at-most-once occurrence one call at most, no retry, and a loss only after a kill', () => {
    const once = (fields: Partial<Evidence>) => history(fields, 'at-most-once');
    const lostRun = run(1, { status: 'FAILED', errorType: 'lost' });

    const clean = checkAtMostOnce(once({ runs: [run(1)], calls: [call(1, T)] }));
    const twice = checkAtMostOnce(once({ runs: [run(1, { recoveries: 1 })], calls: [call(1, T), call(1, T + 9_000)] }));
    const retried = checkAtMostOnce(once({}));
    const lostAfterKill = checkAtMostOnce(
      once({ runs: [lostRun], calls: [call(1, T)], kills: [kill(T + 10, [lostRun.runId])] }),
    );
    const lostForNothing = checkAtMostOnce(once({ runs: [lostRun], calls: [] }));

    expect(clean.failures).toEqual([]);
    expect(twice.failures.join('\n')).toContain('2 calls');
    expect(twice.failures.join('\n')).toContain('taken over');
    expect(retried.failures.join('\n')).toContain('retried');
    expect(lostAfterKill.failures).toEqual([]);
    expect(lostForNothing.failures[0]).toContain('no killed executor held it');
  });

  it('hold retries to the jittered cap, never early, and late only by the slack plus kills', () => {
    const retryAt = (nextAttemptAt: number, callAt: number, kills: Kill[] = []) =>
      checkBackoff(
        history({
          runs: [
            run(1, { status: 'FAILED', completedAt: T + 100, nextAttemptAt }),
            run(2, { availableAt: nextAttemptAt, completedAt: callAt + 100 }),
          ],
          calls: [call(1, T), call(2, callAt)],
          kills,
        }),
      );

    expect(retryAt(T + 1_100, T + 1_200).failures).toEqual([]);
    expect(retryAt(T + 1_101, T + 1_200).failures[0]).toContain('cap 1000 ms');
    expect(retryAt(T + 600, T + 500).failures[0]).toContain('before its release');
    expect(retryAt(T + 600, T + 600 + 2_001).failures[0]).toContain('allowed 2000 ms, 0 kills');
    expect(retryAt(T + 600, T + 600 + 9_000, [kill(T + 700, [`${JOB}_${T}_2`])]).failures).toEqual([]);
  });

  it('require exactly one scanner kill mid-scan whose created runs all finished', () => {
    const scannerKill = kill(T, [], { role: 'scanner', reason: 'mid-scan', scanInProgress: true });
    const hold = { scan: 3, createdRunIds: [`${JOB}_${T}_1`], heldRunIds: [`${JOB}_${T}_1`] };
    const stuck = history({
      kills: [scannerKill],
      scannerHold: hold,
      runs: [run(1, { status: 'QUEUED' })],
    });

    expect(checkScannerKill(history({ kills: [scannerKill], scannerHold: hold })).failures).toEqual([]);
    expect(checkScannerKill(stuck).failures[0]).toContain(`LOST ${JOB}_${T}_1`);
    expect(checkScannerKill(history()).failures[0]).toContain('0 scanner kills');
    expect(
      checkScannerKill(history({ kills: [{ ...scannerKill, scanInProgress: false }], scannerHold: hold })).ok,
    ).toBe(false);
  });

  it('require a scanner killed in a catch-up pass whose catch-up runs all finished', () => {
    const catchUp = (runs: StoredRun[]) => {
      const base = history({ runs });
      const plan = { ...(base.plans[0] as CreatedJob), kind: 'catch-up' as const };
      return history({
        runs,
        plans: [plan],
        kills: [kill(T, [], { role: 'scanner', reason: 'catch-up', scanInProgress: true })],
        catchUpHolds: [{ scan: 9, createdRunIds: [`${JOB}_${T}_1`], heldRunIds: [`${JOB}_${T}_1`] }],
      });
    };

    expect(checkCatchUpKill(catchUp(history().runs)).failures).toEqual([]);
    expect(checkCatchUpKill(catchUp([run(1, { status: 'QUEUED' })])).failures[0]).toContain(`LOST ${JOB}_${T}_1`);
    expect(checkCatchUpKill(history()).failures[0]).toContain('no scanner was killed in a catch-up pass');
  });

  it('require every run left unsent (a failed send, a killed scan) to be swept and to finish', () => {
    const unsent = (runs: StoredRun[], fields: Partial<Evidence> = {}) =>
      checkUnsentRunsSwept(history({ runs, unsentRunIds: [`${JOB}_${T}_2`], ...fields }));
    const [first, second] = history().runs as [StoredRun, StoredRun];
    const outage = { sqsOutage: { stoppedAt: T, restartedAt: T + 5_000 } };

    expect(unsent([first, { ...second, sweeps: 1 }], outage).failures).toEqual([]);
    expect(unsent([first, second]).failures[0]).toContain('was never swept');
    expect(unsent([first, { ...second, sweeps: 1, status: 'QUEUED' }]).failures[0]).toContain('still QUEUED');
    expect(checkUnsentRunsSwept(history({ ...outage, unsentRunIds: [] })).failures[0]).toContain('failed no send');
    const killedScan = { scan: 1, createdRunIds: [], confirmedRunIds: [`${JOB}_${T}_1`], heldRunIds: [] };
    expect(checkUnsentRunsSwept(history({ scannerHold: killedScan })).failures[0]).toContain(
      `UNSENT ${JOB}_${T}_1 (FAILED) was never swept`,
    );
  });

  it('fail when the chaos did not happen', () => {
    expect(checkChaosHappened(history()).ok).toBe(false);
  });
});
