/**
 * The async workload's arithmetic and strict verdict (async-report.ts), with hand-checked figures
 * and crafted evidence that must fail: callbacks answered, how runs ended, the detection delay,
 * the heartbeats-only window and the cost per heartbeat drawn from it.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  type AsyncPlan,
  type AsyncReport,
  asyncEnds,
  asyncFailures,
  asyncVerdicts,
  type CallbackRecord,
  type CounterSample,
  callbackCounts,
  type EndedRun,
  heartbeatCost,
  heartbeatWindow,
  plannedHeartbeats,
  renderAsyncReport,
} from './async-report.ts';
import type { CounterSnapshot } from './aws-request-counter.ts';
import { deliveryReport } from './delivery.ts';
import { benchFailures, type WorkloadResult } from './report.ts';
import { summarize } from './stats.ts';

const T = 1_764_000_000_000;
const HEARTBEAT = 'api:callback-heartbeat';

const plan: AsyncPlan = {
  runs: 3,
  silent: 1,
  heartbeatEveryMs: 5_000,
  workMs: 60_000,
  heartbeatTimeoutSeconds: 15,
  scannerIntervalMs: 5_000,
  poolSize: 64,
};

const record = (kind: CallbackRecord['kind'], status: number, sentAt = T, roundTripMs = 10): CallbackRecord => ({
  key: `J:${T}`,
  kind,
  sentAt,
  answeredAt: sentAt + roundTripMs,
  status,
});

describe('callbacks answered', () => {
  it('counts 200s apart from every other answer, no answer at all as status 0, and the round trips', () => {
    const counts = callbackCounts(
      [
        record('heartbeat', 200, T, 10),
        record('heartbeat', 200, T, 30),
        record('heartbeat', 409, T, 20),
        record('heartbeat', 0, T, 30_000),
        record('heartbeat', 409, T, 5),
        record('complete', 200, T, 99),
      ],
      'heartbeat',
    );
    expect(counts).toMatchObject({ sent: 5, ok: 2, notOk: 3, notOkByStatus: { '0': 1, '409': 2 } });
    expect(counts.latencyMs).toMatchObject({ count: 5, p50: 20, max: 30_000 });
  });

  it('plans 11 heartbeats per healthy worker of 60 s at one per 5 s (the 60th second completes), one per silent worker', () => {
    expect(plannedHeartbeats(plan)).toBe(2 * 11 + 1);
    expect(plannedHeartbeats({ ...plan, runs: 1000, silent: 100, workMs: 62_000 })).toBe(900 * 12 + 100);
  });
});

const run = (jobId: string, status: string, extra: Partial<EndedRun> = {}): EndedRun => ({
  jobId,
  scheduledFor: T,
  attempt: 1,
  status,
  ...extra,
});

describe('how the runs ended', () => {
  const healthy = new Set(['H1', 'H2', 'H3']);
  const silent = new Set(['S1', 'S2']);

  it('counts planned ends, and the detection delay as completedAt − heartbeatDeadline of heartbeat timeouts', () => {
    const ends = asyncEnds(
      [
        run('H1', 'SUCCEEDED'),
        run('H2', 'SUCCEEDED'),
        run('H3', 'SUCCEEDED'),
        run('S1', 'TIMED_OUT', {
          errorType: 'heartbeat_timeout',
          heartbeatDeadline: T + 20_000,
          completedAt: T + 23_500,
        }),
        run('S2', 'TIMED_OUT', {
          errorType: 'heartbeat_timeout',
          heartbeatDeadline: T + 21_000,
          completedAt: T + 21_400,
        }),
        run('OTHER', 'RUNNING'), // another workload's job: not this one's business
      ],
      healthy,
      silent,
    );
    expect(ends).toMatchObject({
      succeeded: 3,
      heartbeatTimedOut: 2,
      unended: 0,
      wrongEnds: [],
      extraAttempts: 0,
      missingRuns: 0,
      lastDetectionAt: T + 23_500,
    });
    expect(ends.detectionDelayMs).toMatchObject({ count: 2, p50: 400, max: 3_500 });
  });

  it('names every run that ended otherwise than planned, never ended, was attempted again, or is missing', () => {
    const ends = asyncEnds(
      [
        run('H1', 'TIMED_OUT', { errorType: 'heartbeat_timeout' }), // a healthy worker's run timed out
        run('H2', 'RUNNING'),
        run('S1', 'TIMED_OUT', { errorType: 'timeout' }), // the max duration, not the missed heartbeat
        run('S2', 'SUCCEEDED'), // a silent worker cannot have completed
        run('S2', 'QUEUED', { attempt: 2 }),
      ],
      healthy,
      silent,
    );
    expect(ends).toMatchObject({ succeeded: 0, heartbeatTimedOut: 0, unended: 2, extraAttempts: 1, missingRuns: 1 });
    expect(ends.wrongEnds).toEqual([
      'TIMED_OUT/heartbeat_timeout H1',
      'TIMED_OUT/timeout S1 (silent worker)',
      'SUCCEEDED/- S2 (silent worker)',
    ]);
    expect(ends.detectionDelayMs.count).toBe(0);
    expect(ends.lastDetectionAt).toBeNaN();
  });
});

describe('the heartbeats-only window', () => {
  it('opens a margin after the last call and the last heartbeat timeout, closes at the first completion', () => {
    expect(
      heartbeatWindow({ lastCallAt: T + 8_000, lastDetectionAt: T + 30_000, firstCompleteAt: T + 60_000 }),
    ).toEqual({
      from: T + 33_000,
      to: T + 60_000,
    });
    expect(
      heartbeatWindow({ lastCallAt: T + 8_000, lastDetectionAt: Number.NaN, firstCompleteAt: T + 60_000 }),
    ).toEqual({ from: T + 11_000, to: T + 60_000 });
  });

  it('is no window when heartbeats were never alone long enough, or nothing completed', () => {
    const short = heartbeatWindow({ lastCallAt: T, lastDetectionAt: T + 53_000, firstCompleteAt: T + 60_000 });
    expect(short).toMatchObject({ problem: expect.stringMatching(/never alone for 5 s/) });
    const none = heartbeatWindow({ lastCallAt: T, lastDetectionAt: T, firstCompleteAt: Number.NaN });
    expect(none).toEqual({ problem: 'no completion was sent' });
  });
});

const snapshot = (
  writeUnits: number,
  computedWriteUnits: number,
  readUnits: number,
  byTarget: CounterSnapshot['dynamodb']['byTarget'],
  requests: Record<string, number>,
): CounterSnapshot => ({
  requests,
  dynamodb: { writeUnits, readUnits, computedWriteUnits, failedConditionalWrites: 0, byTarget },
});

const sample = (at: number, aws: CounterSnapshot, invocations: Record<string, number>): CounterSample => ({
  at,
  aws,
  invocations,
});

describe('cost per heartbeat', () => {
  const samples = [
    // Before the window: creation, calls and acceptances, which must not count.
    sample(T, snapshot(5_000, 10, 900, { runs: { write: 5_000, read: 900 } }, { 'DynamoDB.PutItem': 1_000 }), {
      executor: 100,
    }),
    sample(
      T + 10_000,
      snapshot(
        8_000,
        10,
        1_000,
        { runs: { write: 6_000, read: 1_000 }, 'runs/deadline-index': { write: 2_000, read: 0 } },
        { 'DynamoDB.PutItem': 1_000, 'DynamoDB.UpdateItem': 1_000, 'DynamoDB.GetItem': 1_000 },
      ),
      { executor: 200, [HEARTBEAT]: 1_000, completion: 50, scanner: 2 },
    ),
    sample(
      T + 30_000,
      snapshot(
        12_010,
        12,
        1_500,
        {
          runs: { write: 8_000, read: 1_500 },
          'runs/deadline-index': { write: 4_000, read: 0 },
          shards: { write: 10, read: 0 },
        },
        { 'DynamoDB.PutItem': 1_010, 'DynamoDB.UpdateItem': 2_000, 'DynamoDB.GetItem': 2_000 },
      ),
      { executor: 200, [HEARTBEAT]: 2_000, completion: 150, scanner: 6 },
    ),
    // After the window: completions, which must not count either.
    sample(T + 40_000, snapshot(99_999, 99, 9_999, { runs: { write: 99_999, read: 9_999 } }, {}), {
      [HEARTBEAT]: 9_000,
    }),
  ];

  it('divides the counter difference across the window by the heartbeats in it, by table, request and function', () => {
    const cost = heartbeatCost(samples, { from: T + 5_000, to: T + 35_000 }, HEARTBEAT);
    expect(cost).toEqual({
      window: { from: new Date(T + 10_000).toISOString(), to: new Date(T + 30_000).toISOString(), ms: 20_000 },
      heartbeats: 1_000,
      writeUnits: 4.012, // (4,010 reported + 2 computed) / 1,000
      reportedWriteUnits: 4.01,
      computedWriteUnits: 0.002,
      readUnits: 0.5,
      unitsByTarget: {
        runs: { write: 2, read: 0.5 },
        'runs/deadline-index': { write: 2, read: 0 },
        shards: { write: 0.01, read: 0 },
      },
      requests: { 'DynamoDB.PutItem': 0.01, 'DynamoDB.UpdateItem': 1, 'DynamoDB.GetItem': 1 },
      invocations: { [HEARTBEAT]: 1, completion: 0.1, scanner: 0.004 },
    });
  });

  it('measures nothing without heartbeats in the window, or with too few samples inside it', () => {
    expect(heartbeatCost(samples, { from: T + 5_000, to: T + 35_000 }, 'api:other')).toMatchObject({
      problem: expect.stringMatching(/no api:other invocation/),
    });
    expect(heartbeatCost(samples, { from: T + 25_000, to: T + 35_000 }, HEARTBEAT)).toMatchObject({
      problem: expect.stringMatching(/fewer than 5 s of samples/),
    });
  });
});

const counts = (sent: number, notOkByStatus: Record<string, number> = {}) => {
  const notOk = Object.values(notOkByStatus).reduce((sum, n) => sum + n, 0);
  return { sent, ok: sent - notOk, notOk, notOkByStatus, latencyMs: summarize([10]) };
};

const cleanReport = (): AsyncReport => ({
  plan,
  accepted: 3,
  callsWithoutCallbackUrl: 0,
  heartbeats: counts(23),
  completions: counts(2),
  ends: {
    succeeded: 2,
    heartbeatTimedOut: 1,
    unended: 0,
    wrongEnds: [],
    extraAttempts: 0,
    missingRuns: 0,
    detectionDelayMs: summarize([1_200]),
    lastDetectionAt: T + 25_000,
  },
  heartbeatCost: {
    window: { from: new Date(T).toISOString(), to: new Date(T + 20_000).toISOString(), ms: 20_000 },
    heartbeats: 80,
    writeUnits: 4,
    reportedWriteUnits: 4,
    computedWriteUnits: 0,
    readUnits: 1,
    unitsByTarget: { 'chronos-local-runs': { write: 4, read: 1 } },
    requests: { 'DynamoDB.UpdateItem': 1 },
    invocations: { [HEARTBEAT]: 1 },
  },
});

describe('the async strict verdict (FAIL)', () => {
  it('passes every run taken, every callback answered 200, every run ended as planned', () => {
    expect(asyncFailures(cleanReport())).toEqual([]);
  });

  it.each<[string, (report: AsyncReport) => void, RegExp]>([
    ['a run never taken', (r) => (r.accepted = 2), /1 of 3 runs never taken with 202/],
    ['a run taken twice', (r) => (r.accepted = 4), /1 runs taken more than planned/],
    ['a call without callback URL', (r) => (r.callsWithoutCallbackUrl = 1), /without a Chronos-Callback-Url/],
    [
      'a heartbeat refused',
      (r) => (r.heartbeats = counts(23, { '409': 1 })),
      /1 heartbeats not answered 200 \(409 × 1\)/,
    ],
    ['a heartbeat unanswered', (r) => (r.heartbeats = counts(23, { '0': 2 })), /not answered 200 \(no answer × 2\)/],
    ['a heartbeat short of the plan', (r) => (r.heartbeats = counts(22)), /22 heartbeats sent, 23 planned/],
    ['a completion refused', (r) => (r.completions = counts(2, { '409': 1 })), /1 completions not answered 200/],
    ['a completion never sent', (r) => (r.completions = counts(1)), /1 completions sent, 2 planned/],
    ['a completed run not SUCCEEDED', (r) => (r.ends.succeeded = 1), /1 of 2 completed runs ended SUCCEEDED/],
    ['a silent run not timed out', (r) => (r.ends.heartbeatTimedOut = 0), /0 of 1 silent workers' runs/],
    ['a run never ended', (r) => (r.ends.unended = 1), /1 runs never ended/],
    ['a run ended otherwise', (r) => (r.ends.wrongEnds = ['FAILED/worker_failed H1']), /FAILED\/worker_failed H1/],
    ['an extra attempt', (r) => (r.ends.extraAttempts = 1), /1 extra attempts/],
    ['a job without a run', (r) => (r.ends.missingRuns = 1), /1 jobs without a run/],
    [
      'heartbeats never measured alone',
      (r) => (r.heartbeatCost = { problem: 'no completion was sent' }),
      /the harness, not Chronos: no completion was sent/,
    ],
  ])('fails on %s', (_, spoil, reason) => {
    const report = cleanReport();
    spoil(report);
    expect(asyncFailures(report).join('\n')).toMatch(reason);
  });

  it("fails the bench through benchFailures, and an async result without its figures, with the workload's name", () => {
    const expectation = new Map([['J', [T]]]);
    const base = {
      mode: 'async' as const,
      created: { count: 1, failures: 0, durationMs: 1, latencyMs: summarize([]) },
      delivery: deliveryReport([[T + 5, `J:${T}`]], expectation),
      settle: { settled: true, waitedMs: 1, limitMs: 20_000, state: 'queues 0/0/0' },
    };
    expect(benchFailures([{ ...base, async: cleanReport() }], [])).toEqual([]);
    const spoiled = cleanReport();
    spoiled.ends.unended = 2;
    expect(benchFailures([{ ...base, async: spoiled }], [])).toEqual([
      'async: 2 runs never ended (still RUNNING or QUEUED)',
    ]);
    expect(benchFailures([base], [])).toEqual([
      'async: no async figures (the workload measured nothing of its callbacks)',
    ]);
  });
});

describe('the detection target (PASS/MISS)', () => {
  it('passes when the latest detection came within one scanner interval of the missed deadline', () => {
    expect(asyncVerdicts(cleanReport())).toEqual([
      {
        target: 'missed heartbeat detected ≤ 5000 ms after its deadline (max)',
        workload: 'async',
        measured: 1_200,
        limit: 5_000,
        pass: true,
      },
    ]);
  });

  it('misses a detection later than the interval, and when nothing was detected', () => {
    const late = cleanReport();
    late.ends.detectionDelayMs = summarize([100, 5_001]);
    expect(asyncVerdicts(late)[0]).toMatchObject({ measured: 5_001, pass: false });
    const none = cleanReport();
    none.ends.detectionDelayMs = summarize([]);
    expect(asyncVerdicts(none)[0]?.pass).toBe(false);
  });
});

describe('the printed async report', () => {
  it('shows runs taken, callbacks, ends, detection beside the scanner interval, and the cost per heartbeat by table', () => {
    const text = renderAsyncReport(cleanReport());
    expect(text).toContain('runs taken with 202: 3 / 3');
    expect(text).toContain('heartbeats sent / answered 200 / other: 23 / 23 / 0');
    expect(text).toContain(
      'ended: SUCCEEDED 2, TIMED_OUT heartbeat_timeout 1, not ended 0, otherwise 0, extra attempts 0',
    );
    expect(text).toContain(
      'missed-heartbeat detection (completedAt − heartbeatDeadline) p50 / p99 / max ms: 1,200 / 1,200 / 1,200 (scanner interval 5,000 ms)',
    );
    expect(text).toContain(
      'per heartbeat (80 heartbeats alone in 20 s, 4/s): DynamoDB WU 4 (4 reported + 0 computed), RU 1',
    );
    expect(text).toContain('WU / RU on runs: 4 / 1');
    const unmeasured = cleanReport();
    unmeasured.heartbeatCost = { problem: 'no completion was sent' };
    expect(renderAsyncReport(unmeasured)).toContain('write units per heartbeat: not measured: no completion was sent');
  });
});

describe('the committed async run (2026-11-25, scale 0.2)', () => {
  it('passes the strict verdict, and its heartbeats cost 3 write units of their own (1 on runs, 2 on the deadline index)', () => {
    const file = fileURLToPath(new URL('./results/2026-11-25-only-async-scale0.2.json', import.meta.url));
    const { asyncRuns } = JSON.parse(readFileSync(file, 'utf8')) as { asyncRuns: WorkloadResult[] };
    expect(benchFailures(asyncRuns, [])).toEqual([]);
    const cost = asyncRuns[0]?.async?.heartbeatCost;
    if (!cost || 'problem' in cost) throw new Error('the committed run has no cost per heartbeat');
    expect(cost.unitsByTarget['chronos-local-runs']).toEqual({ write: 1, read: 1 });
    expect(cost.unitsByTarget['chronos-local-runs/deadline-index']?.write).toBe(2);
    expect(renderAsyncReport(asyncRuns[0]?.async as AsyncReport)).toContain(
      'heartbeats sent / answered 200 / other: 2000 / 2000 / 0',
    );
  });
});
