/**
 * The checks of the completion, dead-letter and API kills and of the poison case, on small
 * hand-made histories: each passes on a clean one and fails on the violation it exists to catch.
 */
import { describe, expect, it } from 'vitest';
import { chaosConfig } from './chaos-config.ts';
import type { TargetCall } from './chaos-target.ts';
import {
  checkApiKills,
  checkCompletionKills,
  checkDeadLetterKills,
  checkPoisonRedriven,
  runKillChecks,
} from './checks-kills.ts';
import { designOf, type Evidence, type StoredRun } from './evidence.ts';
import type { Kill } from './fleet.ts';
import type { CreatedJob } from './workload.ts';

const T = 1_000_000;
/** A job created through the API whose occurrence failed once, its retry decided by the killed completion batch. */
const JOB = 'J1';
/** The poison job. */
const POISON = 'P1';
const run = (jobId: string, attempt: number, fields: Partial<StoredRun> = {}): StoredRun => ({
  runId: `${jobId}_${T}_${attempt}`,
  jobId,
  scheduledFor: T,
  attempt,
  status: 'SUCCEEDED',
  ...fields,
});
const call = (jobId: string, attempt: number, fields: Partial<TargetCall> = {}): TargetCall => ({
  at: T + attempt * 1000,
  path: '/chaos',
  idempotencyKey: `${jobId}:${T}`,
  runId: `${jobId}_${T}_${attempt}`,
  attempt,
  fault: 'none',
  callerHungUp: false,
  ...fields,
});
const kill = (role: Kill['role'], reason: string, fields: Partial<Kill> = {}): Kill => ({
  at: T,
  role,
  slot: 0,
  pid: 1,
  heldRunIds: [],
  scanInProgress: false,
  reason,
  ...fields,
});

function history(overrides: Partial<Evidence> = {}): Evidence {
  const plan: CreatedJob = {
    name: 'chaos-once-0',
    kind: 'once',
    delivery: 'at-least-once',
    via: 'api',
    createAtMs: 0,
    dueAfterMs: 0,
    jobId: JOB,
    occurrences: [T],
  };
  return {
    plans: [plan],
    retry: { maxAttempts: 3, initialDelaySeconds: 1, maxDelaySeconds: 4, multiplier: 2 },
    jobs: [
      { jobId: JOB, name: plan.name, status: 'COMPLETED' },
      { jobId: POISON, name: 'chaos-poison-0', status: 'COMPLETED' },
    ],
    runs: [
      run(JOB, 1, { status: 'FAILED', nextAttemptAt: T + 600 }),
      run(JOB, 2),
      run(POISON, 1, { status: 'DEAD_LETTERED' }),
      run(POISON, 2),
    ],
    calls: [call(JOB, 1, { fault: 'http500' }), call(JOB, 2), call(POISON, 2)],
    kills: [
      kill('completion', 'mid-batch', { heldRunIds: [`${JOB}_${T}_1`] }),
      kill('dead-letter', 'dead-letter', { heldRunIds: [`${POISON}_${T}_1`] }),
      kill('api', 'mid-create', { heldJobNames: [plan.name] }),
    ],
    design: designOf(chaosConfig()),
    visibilityTimeoutMs: 10_000,
    apiCreates: [{ name: plan.name, tries: ['UND_ERR_SOCKET', '201 replayed'] }],
    writtenUnanswered: [plan.name],
    poison: {
      jobId: POISON,
      runId: `${POISON}_${T}_1`,
      refusals: 5,
      redriveAnswers: [202],
      redrivenRunId: `${POISON}_${T}_2`,
    },
    minKills: { completion: 1, 'dead-letter': 1, api: 1 },
    ...overrides,
  };
}

const base = history();
const without = (runId: string) => base.runs.filter((r) => r.runId !== runId);

describe('kill checks', () => {
  it('pass on a clean history', () => {
    expect(runKillChecks(base).filter((result) => !result.ok)).toEqual([]);
  });

  describe('completion handler killed mid-batch', () => {
    it('fails when a retry the killed batch owed was never created', () => {
      const result = checkCompletionKills(history({ runs: without(`${JOB}_${T}_2`) }));
      expect(result.ok).toBe(false);
      expect(result.failures.join()).toContain('retry that was never created');
    });

    it('fails when a run of the killed batch is left RUNNING', () => {
      const runs = base.runs.map((r) => (r.runId === `${JOB}_${T}_2` ? { ...r, status: 'RUNNING' } : r));
      expect(checkCompletionKills(history({ runs })).ok).toBe(false);
    });

    it('fails with fewer kills than planned, or none that held a batch', () => {
      expect(checkCompletionKills(history({ minKills: { completion: 2 } })).ok).toBe(false);
      const idle = base.kills.map((k) => (k.role === 'completion' ? { ...k, heldRunIds: [] } : k));
      expect(checkCompletionKills(history({ kills: idle })).ok).toBe(false);
    });
  });

  describe('dead-letter consumer killed', () => {
    it('fails when the held dead letter was never recorded', () => {
      const runs = base.runs.map((r) => (r.runId === `${POISON}_${T}_1` ? { ...r, status: 'QUEUED' } : r));
      expect(checkDeadLetterKills(history({ runs })).ok).toBe(false);
    });

    it('fails when it was never killed holding one', () => {
      expect(checkDeadLetterKills(history({ kills: base.kills.filter((k) => k.role !== 'dead-letter') })).ok).toBe(
        false,
      );
      const idle = base.kills.map((k) => (k.role === 'dead-letter' ? { ...k, heldRunIds: [] } : k));
      expect(checkDeadLetterKills(history({ kills: idle })).ok).toBe(false);
    });
  });

  describe('API killed mid-create', () => {
    it('fails when a create made two jobs (a blind retry)', () => {
      const jobs = [...base.jobs, { jobId: 'J2', name: 'chaos-once-0', status: 'COMPLETED' }];
      const result = checkApiKills(history({ jobs }));
      expect(result.ok).toBe(false);
      expect(result.failures.join()).toContain('2 jobs stored');
    });

    it('fails when a create failed for good, or its job is missing', () => {
      const plans = base.plans.map((plan) => ({ ...plan, createError: 'gave up after 40 tries' }));
      expect(checkApiKills(history({ plans })).failures.join()).toContain('CREATE FAILED');
      expect(checkApiKills(history({ jobs: base.jobs.filter((job) => job.jobId !== JOB) })).ok).toBe(false);
    });

    it('fails when the held create was never recovered by its client', () => {
      expect(
        checkApiKills(history({ apiCreates: [{ name: 'chaos-once-0', tries: ['UND_ERR_SOCKET', '201'] }] })).ok,
      ).toBe(false);
    });

    it('fails when no kill held a create, or none whose job was written, or no job went through the API', () => {
      const idle = base.kills.map((k) => (k.role === 'api' ? { ...k, heldJobNames: [] } : k));
      expect(checkApiKills(history({ kills: idle })).ok).toBe(false);
      expect(checkApiKills(history({ writtenUnanswered: [] })).ok).toBe(false);
      const direct = base.plans.map((plan) => ({ ...plan, via: 'direct' as const }));
      expect(checkApiKills(history({ plans: direct })).ok).toBe(false);
    });
  });

  describe('poison message', () => {
    it('fails when the poison run ended otherwise than DEAD_LETTERED', () => {
      const runs = base.runs.map((r) => (r.runId === `${POISON}_${T}_1` ? { ...r, status: 'FAILED' } : r));
      expect(checkPoisonRedriven(history({ runs })).ok).toBe(false);
    });

    it('fails when the target was called for the poison attempt', () => {
      expect(checkPoisonRedriven(history({ calls: [...base.calls, call(POISON, 1)] })).ok).toBe(false);
    });

    it('fails when the re-drive was refused or made nothing', () => {
      const poison = base.poison as NonNullable<Evidence['poison']>;
      expect(checkPoisonRedriven(history({ poison: { ...poison, redriveAnswers: [409] } })).ok).toBe(false);
      expect(checkPoisonRedriven(history({ runs: without(`${POISON}_${T}_2`) })).ok).toBe(false);
    });

    it('fails when the re-driven attempt is not terminal or the target never saw it', () => {
      const runs = base.runs.map((r) => (r.runId === `${POISON}_${T}_2` ? { ...r, status: 'QUEUED' } : r));
      expect(checkPoisonRedriven(history({ runs })).ok).toBe(false);
      expect(checkPoisonRedriven(history({ calls: base.calls.filter((c) => c.runId !== `${POISON}_${T}_2`) })).ok).toBe(
        false,
      );
    });

    it('fails when there is no poison case at all', () => {
      const { poison: _dropped, ...rest } = base;
      expect(checkPoisonRedriven(rest).ok).toBe(false);
    });
  });
});
