/**
 * The chaos checks on small hand-made histories: each guarantee passes on a clean history and
 * fails on the violation it exists to catch, so a green chaos run means something.
 */
import { describe, expect, it } from 'vitest';
import { chaosConfig } from './chaos-config.ts';
import type { TargetCall } from './chaos-target.ts';
import {
  checkAtMostOnce,
  checkBackoff,
  checkCallsPerOccurrence,
  checkCatchUpKill,
  checkChaosHappened,
  checkDuplicatesExplained,
  checkOccurrencesTerminal,
  checkRecordsMatchTarget,
  checkRetryableFailuresRetried,
  checkScannerKill,
  checkUnsentRunsSwept,
  retryLatenessBound,
} from './checks.ts';
import { type ChaosDesign, designOf, type Evidence, type StoredRun } from './evidence.ts';
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

/** The chaos run's own design numbers (lease margin 2 s, sweep grace 20 s, scanners every 2-3 s...). */
const DESIGN: ChaosDesign = designOf(chaosConfig({ scale: 1 }));

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
      run(1, { status: 'FAILED', errorType: 'http_5xx', completedAt: T + 100, nextAttemptAt: T + 600 }),
      run(2, { availableAt: T + 600, createdAt: T + 300, completedAt: T + 900 }),
    ],
    calls: [call(1, T + 5, { fault: 'http500' }), call(2, T + 700)],
    kills: [],
    design: DESIGN,
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

  it('hold retries to the jittered cap, never early, and late only by what the design allows', () => {
    const retryAt = (nextAttemptAt: number, callAt: number, kills: Kill[] = [], createdAt = T + 500) =>
      checkBackoff(
        history({
          runs: [
            run(1, { status: 'FAILED', completedAt: T + 100, nextAttemptAt }),
            run(2, { availableAt: nextAttemptAt, createdAt, completedAt: callAt + 100 }),
          ],
          calls: [call(1, T), call(2, callAt)],
          kills,
        }),
      );
    const killed = [kill(T + 700, [`${JOB}_${T}_2`])];

    expect(retryAt(T + 1_100, T + 1_200).failures).toEqual([]);
    expect(retryAt(T + 1_101, T + 1_200).failures[0]).toContain('cap 1000 ms');
    expect(retryAt(T + 600, T + 500).failures[0]).toContain('before its release');
    // Sweep grace 20 s + the slowest scanner's 3 s + a lease margin of 2 s; + a visibility timeout per kill.
    expect(retryAt(T + 600, T + 600 + 25_000).failures).toEqual([]);
    expect(retryAt(T + 600, T + 600 + 25_001).failures[0]).toContain('allowed 25000 ms, 0 kills');
    expect(retryAt(T + 600, T + 600 + 35_000, killed).failures).toEqual([]);
    expect(retryAt(T + 600, T + 600 + 35_001, killed).failures[0]).toContain('allowed 35000 ms, 1 kills');
    // What the old allowance (60 s + 10 s per kill) let through.
    expect(retryAt(T + 600, T + 600 + 59_000).ok).toBe(false);
  });

  it('count a retry made after its release from its creation, and hold its making to a bound of its own', () => {
    const madeAt = (createdAt: number, callAt: number, kills: Kill[] = []) =>
      checkBackoff(
        history({
          runs: [
            run(1, { status: 'FAILED', completedAt: T + 100, nextAttemptAt: T + 600 }),
            run(2, { availableAt: T + 600, createdAt, completedAt: callAt + 100 }),
          ],
          calls: [call(1, T), call(2, callAt)],
          kills,
        }),
      );
    // Made 9.5 s after the failure, after its release: its sweep counts the grace from then (sweepAtOf).
    expect(madeAt(T + 9_600, T + 9_600 + 25_000).failures).toEqual([]);
    expect(madeAt(T + 9_600, T + 9_600 + 25_001).failures[0]).toContain('after it was due (allowed 25000 ms');
    expect(madeAt(T + 9_600, T + 9_600 + 25_001).failures[0]).toContain('creation, after its release');
    // Its making is held to the same base allowance, from the failure.
    expect(madeAt(T + 100 + 25_000, T + 100 + 25_500).failures).toEqual([]);
    expect(madeAt(T + 100 + 25_001, T + 100 + 25_500).failures[0]).toContain('created 25001 ms after');
    // The completion handler killed while the failure waited for its retry to be made: one more
    // allowance for the making; killed before the failure or after the retry was made, none.
    const completionKill = (at: number) => kill(at, ['other'], { role: 'completion', reason: 'mid-batch' });
    expect(madeAt(T + 100 + 35_000, T + 100 + 35_500, [completionKill(T + 300)]).failures).toEqual([]);
    expect(madeAt(T + 100 + 35_001, T + 100 + 35_500, [completionKill(T + 300)]).failures[0]).toContain(
      '1 completion kills',
    );
    expect(madeAt(T + 100 + 35_000, T + 100 + 35_500, [completionKill(T + 50)]).failures[0]).toContain(
      '0 completion kills',
    );
    expect(madeAt(T + 100 + 35_000, T + 100 + 35_500, [completionKill(T + 100 + 35_001)]).failures[0]).toContain(
      '0 completion kills',
    );
  });

  it('derive the retry lateness bound from the design numbers, not from a measured run', () => {
    expect(retryLatenessBound(history())).toEqual({ baseMs: 25_000, perKillMs: 10_000 });
    const longerGrace = history({ design: { ...DESIGN, sweepGraceMs: 40_000 } });
    expect(retryLatenessBound(longerGrace).baseMs).toBe(45_000);
    const longOutage = history({ sqsOutage: { stoppedAt: T, restartedAt: T + 30_000 } });
    expect(retryLatenessBound(longOutage).baseMs).toBe(32_000);
    const longLease = history({ design: { ...DESIGN, timeoutMs: 9_000, leaseMarginMs: 3_000 } });
    expect(retryLatenessBound(longLease).perKillMs).toBe(12_000);
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

  it('fail when any planned job was not created, instead of leaving it out', () => {
    const base = history();
    const plan = base.plans[0] as CreatedJob;
    const never: CreatedJob = { ...plan, name: 'chaos-once-1', jobId: undefined, createError: 'HTTP 500' };
    const answeredWithErrorButMade: CreatedJob = { ...plan, jobId: undefined, createError: 'socket hang up' };

    const missing = checkOccurrencesTerminal(history({ plans: [plan, never] }));
    const foundByName = checkOccurrencesTerminal(history({ plans: [answeredWithErrorButMade] }));

    expect(missing.ok).toBe(false);
    expect(missing.failures[0]).toContain('NOT CREATED chaos-once-1 (once): HTTP 500');
    expect(missing.numbers).toContain('1 of 2 planned jobs not created');
    expect(foundByName.failures).toEqual([]);
  });

  it('trust no run record the target log contradicts', () => {
    const [failed, succeeded] = history().runs as [StoredRun, StoredRun];
    const records = (fields: Partial<Evidence>, delivery?: CreatedJob['delivery']) =>
      checkRecordsMatchTarget(history(fields, delivery));

    expect(records({}).failures).toEqual([]);
    // SUCCEEDED, but the target never saw attempt 2, or only answered it 500, or the caller hung up.
    expect(records({ calls: [call(1, T + 5, { fault: 'http500' })] }).failures[0]).toContain(
      'SUCCEEDED, but the target answered no call of it 2xx (no call)',
    );
    expect(records({ calls: [call(1, T, { fault: 'http500' }), call(2, T + 700, { fault: 'http500' })] }).ok).toBe(
      false,
    );
    expect(records({ calls: [call(1, T, { fault: 'http500' }), call(2, T + 700, { callerHungUp: true })] }).ok).toBe(
      false,
    );
    // An outcome that is not what the target served, or of a call that never happened.
    expect(records({ calls: [call(1, T + 5, { fault: 'reset' }), call(2, T + 700)] }).failures[0]).toContain(
      'recorded FAILED/http_5xx, but the target served reset',
    );
    const noCall = records({ calls: [call(2, T + 700)] });
    expect(noCall.failures[0]).toContain('FAILED/http_5xx, an outcome of a call the target never received');
    // An at-least-once occurrence that ended without any call, whatever it ended as.
    for (const status of ['DEAD_LETTERED', 'CANCELLED']) {
      const uncalled = records({ runs: [run(1, { status, errorType: 'dead_letter' })], calls: [] });
      expect(uncalled.failures.join('\n')).toContain('(at-least-once) occurrence');
      expect(uncalled.failures.join('\n')).toContain('without a single call');
    }
    // `lost` is for at-most-once only.
    const lostRun = run(1, { status: 'FAILED', errorType: 'lost' });
    const held = [kill(T + 10, [lostRun.runId])];
    const jobs = [{ jobId: JOB, name: 'chaos-once-0', status: 'FAILED' }];
    expect(records({ runs: [lostRun], calls: [call(1, T)], kills: held, jobs }).failures[0]).toContain(
      'only an at-most-once run may be',
    );
    expect(records({ runs: [lostRun], calls: [], kills: held, jobs }, 'at-most-once').failures).toEqual([]);
    expect(records({ runs: [lostRun], calls: [], jobs }, 'at-most-once').failures[0]).toContain(
      'with no killed executor holding it',
    );
    expect(
      records({ runs: [run(1, { status: 'CANCELLED' })], calls: [], kills: held }, 'at-most-once').failures[0],
    ).toContain('never called, ended CANCELLED');
    // A one-time job's status is its last attempt's.
    const jobIs = (status: string, runs: StoredRun[], calls: TargetCall[]) =>
      records({ jobs: [{ jobId: JOB, name: 'chaos-once-0', status }], runs, calls });
    const lastFailed = [failed, { ...succeeded, status: 'FAILED', errorType: 'http_5xx' }];
    const twoFaults = [call(1, T, { fault: 'http500' }), call(2, T + 700, { fault: 'http500' })];
    expect(jobIs('COMPLETED', lastFailed, twoFaults).failures[0]).toContain(
      'is COMPLETED, but its last attempt ended FAILED/http_5xx: expected FAILED',
    );
    expect(jobIs('FAILED', lastFailed, twoFaults).failures).toEqual([]);
    expect(jobIs('FAILED', [failed, succeeded], history().calls).failures[0]).toContain('expected COMPLETED');
  });

  it('require every retryable failure below maxAttempts to have its next attempt', () => {
    const fiveHundred = (fields: Partial<StoredRun> = {}) =>
      run(1, { status: 'FAILED', errorType: 'http_5xx', completedAt: T + 100, ...fields });
    const notRetried = history({ runs: [fiveHundred()], calls: [call(1, T, { fault: 'http500' })] });
    const neverCreated = history({
      runs: [fiveHundred({ nextAttemptAt: T + 600 })],
      calls: [call(1, T, { fault: 'http500' })],
    });
    const resetRecordedAsFinal = history({
      runs: [run(1, { status: 'FAILED' })],
      calls: [call(1, T, { fault: 'reset' })],
    });
    const retriedPastMax = history({
      runs: [
        fiveHundred({ nextAttemptAt: T + 600 }),
        run(2, { status: 'FAILED', errorType: 'http_5xx', nextAttemptAt: T + 1_500 }),
        run(3, { status: 'FAILED', errorType: 'http_5xx', nextAttemptAt: T + 3_000 }),
      ],
    });

    expect(checkRetryableFailuresRetried(history()).failures).toEqual([]);
    expect(checkRetryableFailuresRetried(history()).numbers).toContain(
      '1 at-least-once attempts below maxAttempts failed retryably; 1 have',
    );
    // The terminal check alone lets an executor that never retries through.
    expect(checkOccurrencesTerminal(notRetried).ok).toBe(true);
    expect(checkRetryableFailuresRetried(notRetried).failures[0]).toContain(
      'attempt 1 of 3 ended FAILED/http_5xx (00:16:40.000 http500) and decided no retry',
    );
    expect(checkRetryableFailuresRetried(neverCreated).failures[0]).toContain('attempt 2 was never created');
    expect(checkRetryableFailuresRetried(resetRecordedAsFinal).failures[0]).toContain('decided no retry');
    expect(checkRetryableFailuresRetried(retriedPastMax).failures[0]).toContain('attempt 3 of 3 decided a retry');
    expect(checkRetryableFailuresRetried(history({ runs: [fiveHundred()] }, 'at-most-once')).failures).toEqual([]);
  });

  describe('chaos was applied', () => {
    const AMO = 'J2';
    const amoRun: StoredRun = {
      ...run(1, { status: 'FAILED', errorType: 'lost' }),
      runId: `${AMO}_${T}_1`,
      jobId: AMO,
    };
    /** A short kill schedule (one at least every 8 s until 16 s: 2 kills), and every fault served once. */
    const chaotic = (fields: Partial<Evidence> = {}) => {
      const base = history();
      const retried = base.runs[1] as StoredRun;
      const amoPlan: CreatedJob = {
        ...(base.plans[0] as CreatedJob),
        name: 'chaos-once-1',
        jobId: AMO,
        delivery: 'at-most-once',
      };
      return history({
        design: { ...DESIGN, killUntilMs: 16_000, killEveryMs: [3_000, 8_000] },
        plans: [base.plans[0] as CreatedJob, amoPlan],
        jobs: [...base.jobs, { jobId: AMO, name: amoPlan.name, status: 'FAILED' }],
        runs: [base.runs[0] as StoredRun, { ...retried, recoveries: 1 }, amoRun],
        calls: [
          ...base.calls,
          call(2, T + 5_000),
          call(9, T, { runId: 'other_hang', fault: 'hang' }),
          call(9, T, { runId: 'other_reset', fault: 'reset' }),
        ],
        kills: [kill(T + 1_000, [retried.runId]), kill(T + 2_000, [amoRun.runId])],
        ...fields,
      });
    };

    it('passes when every fault happened as often as the design makes certain', () => {
      const result = checkChaosHappened(chaotic());
      expect(result.failures).toEqual([]);
      expect(result.numbers).toContain('2 executor SIGKILLs (>= 2), 2 holding claimed runs (>= 1');
    });

    it('fails a degraded harness: too few kills, kills holding nothing claimed, no repeat, no loss, no retry, a fault never served', () => {
      const fails = (evidence: Evidence, why: string) => {
        const result = checkChaosHappened(evidence);
        expect(result.ok).toBe(false);
        expect(result.failures.join('\n')).toContain(why);
      };
      const base = chaotic();
      fails(chaotic({ kills: [base.kills[0] as Kill] }), '1 executor kills, fewer than the 2');
      // Killed while holding runs not yet claimed (no call yet, no claim before the kill).
      fails(
        chaotic({ kills: [kill(T - 1_000, ['J3_1_1']), kill(T - 500, ['J3_1_1'])] }),
        '0 executor kills holding claimed runs',
      );
      fails(chaotic({ calls: base.calls.filter((c) => c.at !== T + 5_000) }), '0 repeat calls explained by a kill');
      fails(chaotic({ runs: base.runs.filter((r) => r.runId !== amoRun.runId) }), '0 at-most-once runs lost to a kill');
      fails(chaotic({ runs: base.runs.filter((r) => r.attempt === 1) }), '0 retries');
      fails(chaotic({ calls: base.calls.filter((c) => c.fault !== 'hang') }), '0 calls served hang');
    });

    it('scales the floors to the run: retries to the workload and its fault share, faults to the calls', () => {
      const base = chaotic();
      const hundred = Array.from({ length: 100 }, (_, i) => T + i);
      const bigPlan = { ...(base.plans[0] as CreatedJob), occurrences: hundred };
      // 100 at-least-once occurrences, fault share 0.3, 3 attempts: 100 x (0.3 + 0.09) / 2 = 19 retries at least.
      fails19(checkChaosHappened(chaotic({ plans: [bigPlan, base.plans[1] as CreatedJob] })).failures.join('\n'));
      const manyCalls = [...base.calls, ...Array.from({ length: 100 }, (_, i) => call(1, T + i, { runId: `x_${i}` }))];
      // 105 calls with 20% answered 500: 10 at least, and only 1 was.
      expect(checkChaosHappened(chaotic({ calls: manyCalls })).failures.join('\n')).toContain(
        '1 calls served http500, fewer than the 10',
      );
    });
    const fails19 = (failures: string) =>
      expect(failures).toContain('1 retries (attempts after the first), fewer than the 19');
  });
});
