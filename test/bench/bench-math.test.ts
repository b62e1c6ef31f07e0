/**
 * The bench's pure arithmetic and verdict, with hand-checked figures and crafted evidence that must
 * fail: percentiles, delivery, the exit-code verdict, settled, cost, item size, capacity plan.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { capacityPlan, type Knobs, type MeasuredCounts } from './capacity.ts';
import { costPerMillion, gbSeconds } from './cost.ts';
import {
  deliveryReport,
  type Expectation,
  type Leftovers,
  type OneCallBetween,
  type RecordedCall,
} from './delivery.ts';
import { itemSize, writeUnitsFor } from './item-size.ts';
import { moduleOf, summarize as summarizeProfile } from './profile-summary.ts';
import { benchFailures, verdicts, type WorkloadResult } from './report.ts';
import { isSettled, type SystemState } from './settle.ts';
import { percentile, summarize } from './stats.ts';

describe('percentiles', () => {
  it('takes the nearest rank, so every percentile is a measured value', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    expect([50, 95, 99, 100].map((p) => percentile(hundred, p))).toEqual([50, 95, 99, 100]);
    expect(summarize([5, 1, 4, 2, 3])).toEqual({ count: 5, p50: 3, p95: 5, p99: 5, max: 5, mean: 3 });
    expect(percentile([7], 0)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('delivery report', () => {
  const expectation: Expectation = new Map<string, number[] | OneCallBetween>([
    ['A', [1000, 2000, 3000]],
    ['B', { from: 400, to: 450 }], // a run-now job created between 400 and 450
  ]);

  it('counts lost, duplicate and unexpected calls and the lag of first arrivals', () => {
    const report = deliveryReport(
      [
        [1100, 'A:1000'],
        [1150, 'A:1000'], // the same occurrence again
        [2300, 'A:2000'],
        [500, 'B:420'],
        [600, 'B:430'], // a run-now job called for a second occurrence
        [700, 'C:1'], // nobody's job
        [800, 'A:1500'], // a due time off A's schedule
        [900, 'B:999'], // outside B's creation window
        [950, 'A:1e3'], // not <jobId>:<digits>
        [960, 'A:+2000'],
        [970, ''], // no Idempotency-Key at all
      ],
      expectation,
    );
    expect(report).toMatchObject({ expected: 4, calls: 11, delivered: 3, lost: 1, pending: 0, duplicates: 1 });
    expect(report.unexpectedBy).toEqual({
      malformedKey: 3,
      unknownJob: 1,
      offSchedule: 2,
      extraOccurrence: 1,
      wrongTarget: 0,
    });
    expect(report.unexpected).toBe(7);
    expect(report.fireLagMs).toMatchObject({ p50: 100, max: 300, count: 3 });
    expect(report.executionsPerSecond).toBeCloseTo(3 / 1.8, 6);
  });

  it('calls a missing occurrence pending only while Chronos still owes it, lost otherwise', () => {
    const calls: RecordedCall[] = [[1100, 'A:1000']];
    expect(deliveryReport(calls, expectation)).toMatchObject({ delivered: 1, lost: 3, pending: 0 });
    const runInFlight = { unfinishedRuns: new Set(['A:2000']), unfinishedJobs: new Set<string>() };
    expect(deliveryReport(calls, expectation, runInFlight)).toMatchObject({ lost: 2, pending: 1 });
    // A run-now job's occurrence is owed while any of its runs is unfinished, whatever its due time.
    const runNowInFlight = { unfinishedRuns: new Set(['B:425']), unfinishedJobs: new Set<string>() };
    expect(deliveryReport(calls, expectation, runNowInFlight)).toMatchObject({ lost: 2, pending: 1 });
    // An unfinished job may owe occurrences not materialized yet: all of them pending.
    const jobActive = { unfinishedRuns: new Set<string>(), unfinishedJobs: new Set(['A']) };
    expect(deliveryReport(calls, expectation, jobActive)).toMatchObject({ lost: 1, pending: 2 });
  });
});

describe('bench verdict (exit code)', () => {
  const settled = { settled: true, waitedMs: 1200, limitMs: 20_000, state: 'queues 0/0/0' };
  const created = { count: 2, failures: 0, durationMs: 10, latencyMs: summarize([3, 4]) };
  const expectation: Expectation = new Map<string, number[] | OneCallBetween>([
    ['J1', [1000, 2000]],
    ['J2', { from: 100, to: 200 }],
  ]);
  const allCalls: RecordedCall[] = [
    [1010, 'J1:1000', '/steady/1'],
    [2010, 'J1:2000', '/steady/1'],
    [210, 'J2:150', '/now/2'],
  ];
  const targetPaths = new Map([
    ['J1', '/steady/1'],
    ['J2', '/now/2'],
  ]);
  const stillOwed = { unfinishedRuns: new Set(['J1:2000']), unfinishedJobs: new Set(['J1']) };
  /** A steady workload's result from the calls the target recorded and what Chronos had left. */
  const workload = (calls: RecordedCall[], leftovers?: Leftovers) => ({
    mode: 'steady' as const,
    created,
    delivery: deliveryReport(calls, expectation, leftovers, targetPaths),
    settle: settled,
  });

  it('passes every planned call made once, nothing else, on a settled system', () => {
    expect(benchFailures([workload(allCalls)], [])).toEqual([]);
  });

  it.each<[string, RecordedCall[], RegExp]>([
    ['a lost call', allCalls.slice(1), /1 calls lost/],
    ['a duplicate call', [...allCalls, [2020, 'J1:2000', '/steady/1']], /1 duplicate calls/],
    ['an extra occurrence of a planned job', [...allCalls, [3010, 'J1:3000']], /unexpected calls \(offSchedule 1\)/],
    ['a second occurrence of a run-now job', [...allCalls, [220, 'J2:160', '/now/2']], /extraOccurrence 1/],
    ['a call for a job nobody created', [...allCalls, [220, 'J9:1000']], /unknownJob 1/],
    [
      "an occurrence called on another job's target",
      [...allCalls.slice(1), [1010, 'J1:1000', '/steady/2']],
      /wrongTarget 1/,
    ],
  ])('fails on %s', (_, calls, reason) => {
    const failures = benchFailures([workload(calls)], []);
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.join('\n')).toMatch(reason);
  });

  it('fails a wrong Idempotency-Key twice over: the occurrence is missing and the call unplanned', () => {
    const failures = benchFailures([workload([[1010, 'J1:1000.0'], ...allCalls.slice(1)])], []);
    expect(failures).toEqual([
      'steady: 1 calls lost (Chronos had nothing left to do for them)',
      expect.stringMatching(/malformedKey 1/),
    ]);
  });

  it('fails calls still pending at the deadline, and a system that had not settled', () => {
    const notSettled = { settled: false, waitedMs: 20_000, limitMs: 20_000, state: 'dispatch 0/3/0' };
    const late = workload([allCalls[0], allCalls[2]] as RecordedCall[], stillOwed);
    const failures = benchFailures([{ ...late, settle: notSettled }], []);
    expect(failures).toEqual([
      'steady: 1 calls still pending at the deadline (Chronos still owed them)',
      'steady: not settled after 20 s: dispatch 0/3/0',
    ]);
  });

  it('fails failed creates, a workload that measured nothing, a crashed measurement and an overrun setup', () => {
    expect(benchFailures([{ ...workload(allCalls), created: { ...created, failures: 1 } }], [])).toEqual([
      'steady: 1 job creates failed (no detail)',
    ]);
    const nothing = { mode: 'burst' as const, created: { ...created, count: 0 }, settle: settled };
    expect(benchFailures([{ ...nothing, delivery: deliveryReport([], new Map()) }], [])).toEqual([
      'burst: no job created or no call expected: measured nothing',
    ]);
    expect(benchFailures([], ['burst timed out after 260 s'])).toEqual(['burst timed out after 260 s']);
    const overran = { ...workload(allCalls), setupProblem: '3 jobs were created after their first planned occurrence' };
    expect(benchFailures([overran], [])).toEqual([
      'steady: the harness, not Chronos: 3 jobs were created after their first planned occurrence',
    ]);
  });

  it('fails the committed steady run of 2026-11-23 before the cost cuts: 6,534 calls were pending', () => {
    const file = fileURLToPath(new URL('./results/2026-11-23-before-cost-cuts.json', import.meta.url));
    const { workloads } = JSON.parse(readFileSync(file, 'utf8')) as { workloads: WorkloadResult[] };
    const failures = benchFailures(workloads, []);
    expect(failures).toContain('steady: 6534 calls still pending at the deadline (Chronos still owed them)');
  });
});

describe('precision targets (issue #15)', () => {
  const file = fileURLToPath(new URL('./results/2026-11-24-before-intents.json', import.meta.url));
  const { workloads } = JSON.parse(readFileSync(file, 'utf8')) as { workloads: WorkloadResult[] };
  const withP99 = (mode: string, p99: number) =>
    workloads
      .filter((w) => w.mode === mode)
      .map((w) => ({ ...w, delivery: { ...w.delivery, fireLagMs: { ...w.delivery.fireLagMs, p99 } } }));
  const lagVerdict = (results: WorkloadResult[]) => verdicts(results).find((v) => v.target.startsWith('fire lag p99'));

  it('holds the burst to 3 s and steady load to 1 s, and sets no lag target for run-now jobs', () => {
    expect(lagVerdict(withP99('burst', 2_900))).toMatchObject({ limit: 3_000, pass: true });
    expect(lagVerdict(withP99('burst', 3_100))).toMatchObject({ limit: 3_000, pass: false });
    expect(lagVerdict(withP99('steady', 900))).toMatchObject({ limit: 1_000, pass: true });
    expect(lagVerdict(withP99('steady', 1_100))).toMatchObject({ limit: 1_000, pass: false });
    expect(lagVerdict(withP99('immediate', 60_000))).toBeUndefined();
  });

  it('misses both on the committed run of 2026-11-24 (burst 18.5 s, steady 4.4 s)', () => {
    const lags = verdicts(workloads).filter((v) => v.target.startsWith('fire lag p99'));
    expect(lags.map((v) => [v.workload, v.pass])).toEqual([
      ['burst', false],
      ['steady', false],
    ]);
  });
});

describe('settled', () => {
  const empty = { visible: 0, inFlight: 0, delayed: 0 };
  const quiet: SystemState = {
    queues: { dispatch: empty, deadLetter: empty, notices: empty },
    leftovers: { unfinishedRuns: new Set(), unfinishedJobs: new Set() },
  };

  it('is settled only with every queue empty and no run or job unfinished', () => {
    expect(isSettled(quiet)).toBe(true);
    expect(isSettled({ ...quiet, queues: { ...quiet.queues, dispatch: { ...empty, delayed: 1 } } })).toBe(false);
    expect(isSettled({ ...quiet, queues: { ...quiet.queues, dispatch: { ...empty, inFlight: 1 } } })).toBe(false);
    expect(isSettled({ ...quiet, queues: { ...quiet.queues, deadLetter: { ...empty, visible: 1 } } })).toBe(false);
    expect(isSettled({ ...quiet, queues: { ...quiet.queues, notices: { ...empty, visible: 1 } } })).toBe(false);
    expect(isSettled({ ...quiet, queues: { ...quiet.queues, dispatch: { ...empty, visible: Number.NaN } } })).toBe(
      false,
    );
    expect(isSettled({ ...quiet, leftovers: { ...quiet.leftovers, unfinishedRuns: new Set(['A:1']) } })).toBe(false);
    expect(isSettled({ ...quiet, leftovers: { ...quiet.leftovers, unfinishedJobs: new Set(['A']) } })).toBe(false);
  });
});

describe('cost', () => {
  it('prices one execution at us-east-1 list prices', () => {
    const cost = costPerMillion({
      writeUnits: 10,
      readUnits: 2,
      sqsRequests: 1,
      lambdaInvocations: 0.5,
      lambdaGbSeconds: 0.01,
      apiRequests: 1,
      logBytes: 1024,
    });
    expect(cost.dynamodbWrites).toBeCloseTo(6.25, 9);
    expect(cost.dynamodbReads).toBeCloseTo(0.25, 9);
    expect(cost.sqs).toBeCloseTo(0.4, 9);
    expect(cost.lambdaRequests).toBeCloseTo(0.1, 9);
    expect(cost.lambdaDuration).toBeCloseTo(0.133334, 9);
    expect(cost.core).toBeCloseTo(7.133334, 9);
    expect(cost.apiGateway).toBeCloseTo(3.5, 9);
    expect(cost.logs).toBeCloseTo((1024 * 1e6 * 0.5) / 1024 ** 3, 9); // ~1 GB per million executions
    expect(gbSeconds(1000, 256)).toBe(0.25);
  });

  it('sizes items as DynamoDB does for failed conditional writes', () => {
    expect(itemSize({ pk: { S: 'abc' }, n: { N: '123' } })).toBe(2 + 3 + 1 + 3);
    expect(itemSize({ m: { M: { a: { BOOL: true } } } })).toBe(1 + 3 + 1 + 1 + 1);
    expect([0, 1024, 1025].map(writeUnitsFor)).toEqual([1, 1, 2]);
  });
});

describe('capacity plan', () => {
  const counts: MeasuredCounts = {
    writeUnits: 10,
    readUnits: 2,
    sqsRequests: 1,
    lambdaInvocations: 0.5,
    lambdaGbSeconds: 0.01,
    apiRequests: 1,
    logBytes: 0,
    jobsTableWriteUnits: 4,
    dueIndexWriteUnits: 2,
    runsTableWriteUnits: 2,
    sweepIndexWriteUnits: 2,
    executorInvocations: 0.2,
    completionInvocations: 0.04,
    scannerRequestsPerRun: 2,
  };
  const knobs: Knobs = {
    executionsPerSecond: 10_000,
    dueShardCount: 16,
    executorBatchSize: 5,
    executorMaxConcurrency: 10,
    executorInvocationSeconds: 0.5,
    completionInvocationSeconds: 0.05,
    streamParallelizationFactor: 1,
    scannerIntervalSeconds: 60,
    scannerTimeoutSeconds: 50,
    scannerInFlightRequests: 50,
    dynamodbLatencyMs: 8,
    largestTenantShare: 0.1,
    scannerPathShare: 1,
  };

  it('maps the rate onto each resource against its limit', () => {
    const plan = capacityPlan(counts, knobs);
    const need = Object.fromEntries(plan.rows.map((r) => [r.resource, [r.need, r.limit]]));
    expect(need['due-index WU/s per shard']).toEqual([1250, 1000]);
    expect(need['sweep-index WU/s per shard']).toEqual([1250, 1000]);
    expect(need['jobs table WU/s (table + due-index)']).toEqual([60_000, 40_000]);
    expect(need['jobs table WU/s on the largest tenant key']).toEqual([4000, 1000]);
    expect(need['runs table WU/s (table + sweep-index)']).toEqual([40_000, 40_000]);
    expect(need['DynamoDB RU/s (all tables)']).toEqual([20_000, 40_000]);
    expect(need['executor concurrency vs its maximum']).toEqual([1000, 10]);
    expect(need['Lambda concurrency, account (executor + completion)']?.[0]).toBeCloseTo(1020, 9);
    expect(need['completion concurrency vs stream shards × PF']?.[1]).toBe(40);
    expect(need['SQS messages in flight']).toEqual([5000, 120_000]);
    expect(need['scanner seconds per scan']?.[0]).toBeCloseTo(192, 9); // 600,000 runs x 2 requests x 8 ms / 50
    expect(plan.rows.find((r) => r.resource === 'due-index WU/s per shard')?.suggestion).toBe('≥ 40 shards');
  });

  it('names the tightest resource and prices a day', () => {
    const plan = capacityPlan(counts, knobs);
    expect(plan.firstBottleneck.resource).toBe('executor concurrency vs its maximum');
    expect(plan.sustainableExecutionsPerSecond).toBeCloseTo(100, 9);
    expect(plan.costPerDay.executionsPerDay).toBe(864_000_000);
    expect(plan.costPerDay.core).toBeCloseTo(7.133334 * 864, 6);
    expect(plan.costPerDay.all).toBeCloseTo(10.633334 * 864, 6);
  });
});

describe('profile summary', () => {
  it('names modules by package, node: module or repository path', () => {
    expect(moduleOf('file:///work/main/node_modules/@smithy/core/dist-cjs/index.js')).toBe('@smithy/core');
    expect(moduleOf('file:///x/node_modules/undici/lib/fetch.js')).toBe('undici');
    expect(moduleOf('node:net')).toBe('node:net');
    expect(moduleOf('file:///work/wt/functions/core/signing.ts')).toBe('functions/core/signing.ts');
    expect(moduleOf('')).toBe('(native)');
  });

  it('sums self time per function and module, idle apart', () => {
    const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });
    const text = summarizeProfile(
      {
        nodes: [
          { id: 1, callFrame: frame('(idle)', '') },
          { id: 2, callFrame: frame('sign', 'file:///r/node_modules/@smithy/signature-v4/i.js') },
          { id: 3, callFrame: frame('writev', '') },
        ],
        samples: [1, 2, 3, 2],
        timeDeltas: [5_000, 3_000, 1_000, 2_000],
      },
      5,
    );
    expect(text).toContain('busy 6 ms, idle 5 ms');
    expect(text).toMatch(/83\.3%\s+5\.0 ms {2}sign {2}@smithy\/signature-v4:1/);
    expect(text).toMatch(/16\.7%\s+1\.0 ms {2}writev {2}\(native\)/);
  });
});
