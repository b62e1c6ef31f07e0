/**
 * The precision table's arithmetic, its PASS/MISS lines and the physical floor, on crafted calls
 * with hand-checked figures; crafted evidence that must MISS (a slow p99, a call missing) and that
 * must FAIL the bench (a lost, a duplicate, an unplanned call).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { deliveryReport, type Expectation, type RecordedCall } from './delivery.ts';
import type { Limits } from './limits.ts';
import {
  burstIntakeLine,
  extraReleaseLeadMs,
  MIN_REQUESTS_BEFORE_CALL,
  PRECISION_CONFIG,
  type PrecisionRow,
  physicalFloorMs,
  precisionConfig,
  precisionRow,
  precisionVerdicts,
  renderPrecisionTable,
  stageLags,
} from './precision.ts';
import { benchFailures, physicalFloorOf, renderTable, type WorkloadResult } from './report.ts';
import { summarize } from './stats.ts';

const DUE = 60_000;
/** Jobs J0..J(n-1), each expected once at DUE. */
const expectationOf = (n: number): Expectation => new Map(Array.from({ length: n }, (_, i) => [`J${i}`, [DUE]]));
/** One call per job, arriving `lags[i]` ms after DUE. */
const callsWith = (lags: number[]): RecordedCall[] =>
  lags.map((lag, i) => [DUE + lag, `J${i}:${DUE}`, `/precision/${i}`]);
const row = (baseN: number, n: number, made: number, lags: number[]): PrecisionRow => ({
  baseN,
  n,
  made,
  onTime: lags.filter((l) => l >= 0 && l <= 1000).length,
  early: lags.filter((l) => l < 0).length,
  lagMs: summarize(lags),
});

describe('precision row', () => {
  it('counts made, on time (0 to 1,000 ms after the due second) and early, from first arrivals', () => {
    const calls: RecordedCall[] = [
      ...callsWith([0, 20, 1000, 1001, -5]),
      [DUE + 3000, `J1:${DUE}`, '/precision/1'], // a duplicate: the first arrival counts
      [DUE + 10, `J9:${DUE}`, '/precision/9'], // nobody's job: deliveryReport's to judge
      [DUE + 10, `J2:${DUE + 1000}`, '/precision/2'], // off schedule: not J2's due time
    ];
    const result = precisionRow(8, calls, expectationOf(6));
    expect(result).toMatchObject({ baseN: 8, n: 6, made: 5, onTime: 3, early: 1 });
    // Lags sorted: -5, 0, 20, 1000, 1001 → nearest-rank p50 = 20, p99 = max = 1001.
    expect(result.lagMs).toMatchObject({ count: 5, p50: 20, p99: 1001, max: 1001 });
  });

  it('takes the earliest of repeated calls, whatever order the target recorded them in', () => {
    const calls: RecordedCall[] = [
      [DUE + 900, `J0:${DUE}`],
      [DUE + 100, `J0:${DUE}`],
    ];
    expect(precisionRow(8, calls, expectationOf(1)).lagMs).toMatchObject({ p50: 100, max: 100 });
  });
});

describe('precision table', () => {
  it("renders the issue's table shape, and the detail of each row", () => {
    const stages = stageLags([
      { scheduledFor: DUE, createdAt: DUE - 9000, enqueuedAt: DUE - 8900, receivedAt: DUE - 400, startedAt: DUE + 8 },
      {
        scheduledFor: DUE,
        createdAt: DUE - 8500,
        enqueuedAt: DUE - 8000,
        receivedAt: DUE + 1200,
        claimedAt: DUE + 2100,
        startedAt: DUE + 2500,
      },
    ]);
    const table = renderPrecisionTable(
      [
        row(8, 8, 8, [10, 22, 23, 23, 23, 23, 23, 23]),
        row(500, 500, 499, [...Array(400).fill(900), ...Array(99).fill(7000)]),
      ],
      [stages],
    );
    expect(table.split('\n')).toEqual([
      expect.stringMatching(/^precision: .*on time = arrival within 1.0 s after the due second, never before$/),
      '| N | calls on time | lag p50 | lag p99 |',
      '|---|---|---|---|',
      '| 8 | 8 | 23 ms | 23 ms |',
      '| 500 | 400 of 500 (made 499) | 900 ms | 7.0 s |',
      '',
      '| N | made / N | early | lag max | materialized / sent ahead (min) | received p50 / p99 | claimed p50 / p99 | started p50 / p99 |',
      '|---|---|---|---|---|---|---|---|',
      '| 8 | 8 / 8 | 0 | 23 ms | 8.5 s / 8.0 s | -400 ms / 1.2 s | 2.1 s / 2.1 s | 8 ms / 2.5 s |',
      '| 500 | 499 / 500 | 0 | 7.0 s | – | – | – | – |',
    ]);
  });

  it('says where the lag went: the latest pass and send ahead of the due time, then each stage after it', () => {
    const stages = stageLags([
      {
        scheduledFor: DUE,
        createdAt: DUE - 10_000,
        enqueuedAt: DUE - 6_000,
        receivedAt: DUE - 900,
        claimedAt: DUE + 100,
        startedAt: DUE + 120,
      },
      { scheduledFor: DUE, createdAt: DUE - 7_000, enqueuedAt: DUE - 6_500, receivedAt: DUE + 3000 },
    ]);
    expect(stages.materializedAheadMinMs).toBe(7000);
    expect(stages.sentAheadMinMs).toBe(6000);
    expect(stages.receivedMs).toMatchObject({ count: 2, p50: -900, max: 3000 });
    expect(stages.claimedMs).toMatchObject({ count: 1, p50: 100 });
    expect(stages.startedMs).toMatchObject({ count: 1, p50: 120 });
  });
});

describe('precision verdicts (PASS/MISS)', () => {
  it('passes p99 ≤ 250 ms at N = 200, ≤ 1 s at N = 1,000 and ≤ 3 s at N = 5,000, and judges no other N', () => {
    const list = precisionVerdicts([
      row(8, 8, 8, [5000]),
      row(200, 200, 200, Array(200).fill(250)),
      row(1000, 1000, 1000, Array(1000).fill(1000)),
      row(5000, 5000, 5000, [...Array(4950).fill(100), ...Array(50).fill(3001)]),
    ]);
    expect(list).toEqual([
      {
        target: 'precision lag p99 ≤ 250 ms (every call made)',
        workload: 'N=200',
        measured: 250,
        limit: 250,
        pass: true,
      },
      {
        target: 'precision lag p99 ≤ 1000 ms (every call made)',
        workload: 'N=1000',
        measured: 1000,
        limit: 1000,
        pass: true,
      },
      // The nearest-rank p99 of 5,000 lags is the 4,950th smallest: 50 slow calls do not move it.
      {
        target: 'precision lag p99 ≤ 3000 ms (every call made)',
        workload: 'N=5000',
        measured: 100,
        limit: 3000,
        pass: true,
      },
    ]);
    expect(precisionVerdicts([row(5000, 5000, 5000, Array(5000).fill(3001))])[0]).toMatchObject({ pass: false });
  });

  it('misses a p99 over the limit, and a row with a call missing whatever its p99', () => {
    // The nearest-rank p99 of 200 lags is the 198th smallest: 2 slow calls pass, 3 miss.
    const twoSlow = [...Array(198).fill(100), 251, 251];
    expect(precisionVerdicts([row(200, 200, 200, twoSlow)])[0]).toMatchObject({ measured: 100, pass: true });
    const [missed] = precisionVerdicts([row(200, 200, 200, [...twoSlow.slice(1), 251])]);
    expect(missed).toMatchObject({ measured: 251, pass: false });
    const [incomplete] = precisionVerdicts([row(1000, 1000, 999, Array(999).fill(10))]);
    expect(incomplete).toMatchObject({ measured: Number.POSITIVE_INFINITY, pass: false });
  });

  it('names a scaled row by its N and the N of the issue it stands for', () => {
    expect(precisionVerdicts([row(200, 40, 40, [10])])[0]).toMatchObject({ workload: 'N=40 (200 scaled)', pass: true });
  });
});

describe('precision runs in the strict bench verdict (FAIL)', () => {
  const settled = { settled: true, waitedMs: 100, limitMs: 20_000, state: 'queues 0/0/0' };
  const created = { count: 3, failures: 0, durationMs: 10, latencyMs: summarize([]) };
  const targetPaths = new Map(['J0', 'J1', 'J2'].map((id, i) => [id, `/precision/${i}`]));
  const run = (calls: RecordedCall[]) => ({
    mode: 'precision' as const,
    created,
    delivery: deliveryReport(calls, expectationOf(3), undefined, targetPaths),
    settle: settled,
  });

  it('passes every call made once, however late (lateness is a MISS, not a failure)', () => {
    expect(benchFailures([run(callsWith([10, 20, 9000]))], [])).toEqual([]);
  });

  it.each<[string, RecordedCall[], RegExp]>([
    ['a lost call', callsWith([10, 20]), /precision: 1 calls lost/],
    ['a duplicate call', [...callsWith([10, 20, 30]), [DUE + 40, `J2:${DUE}`, '/precision/2']], /1 duplicate calls/],
    [
      'an unplanned call',
      [...callsWith([10, 20, 30]), [DUE + 40, `J2:${DUE + 1000}`, '/precision/2']],
      /offSchedule 1/,
    ],
  ])('fails on %s', (_, calls, reason) => {
    expect(benchFailures([run(calls)], []).join('\n')).toMatch(reason);
  });
});

describe('physical floor', () => {
  it('is executions × minimal requests before the call ÷ the writes/s of the same run', () => {
    expect(MIN_REQUESTS_BEFORE_CALL).toBe(1);
    expect(physicalFloorMs(5000, 1, 1250)).toBe(4000);
    expect(physicalFloorMs(200, 2, 1000)).toBe(400);
    expect(physicalFloorMs(5000, 1, 0)).toBeNaN();
  });

  it("is printed beside the burst's p99, from the committed 2026-11-24 run (before dispatch intents)", () => {
    const file = fileURLToPath(new URL('./results/2026-11-24-before-intents.json', import.meta.url));
    const { limits, workloads } = JSON.parse(readFileSync(file, 'utf8')) as {
      limits: Limits;
      workloads: WorkloadResult[];
    };
    const burst = workloads.find((w) => w.mode === 'burst') as WorkloadResult;
    // 5,000 × 1 ÷ 1,333.9 PutItem/s = 3.748 s.
    expect(physicalFloorOf(burst, limits).floorMs).toBeCloseTo(3748.4, 0);
    expect(renderTable(workloads, limits)).toContain(
      'burst fire lag p99 18.52 s beside its physical floor 3.75 s (5000 executions × 1 DynamoDB request before the call ÷ 1,334 PutItem/s measured in this run)',
    );
  });
});

describe('precision configuration by N', () => {
  it('keeps the issue table’s configuration while its spread releases every run before the due second', () => {
    for (const n of [8, 64, 200, 500, 1000, 1200]) {
      expect(precisionConfig(n)).toBe(PRECISION_CONFIG);
      expect(extraReleaseLeadMs(precisionConfig(n))).toBe(0);
    }
  });

  it('spreads 5,000 runs at the same 150 a second over 34 s, with pollers to hold them and a pass before', () => {
    const config = precisionConfig(5000);
    // 1 s base lead + ⌈5,000 / 150⌉ = 34 s.
    expect(config.releaseSpread).toEqual({ baseLeadMs: 1_000, readyPerSecond: 150, maxLeadMs: 35_000 });
    // 500 full batches, a quarter more for batches not full.
    expect(config.sqsConcurrency).toBe(625);
    // The first release (35 s ahead) comes after a pass that materialized it: 35 s + two 5 s intervals.
    expect(config.scanHorizonSeconds).toBe(45);
    expect(config.scannerIntervalMs).toBe(5_000);
    expect(extraReleaseLeadMs(config)).toBe(27_000);
  });
});

describe('the 5,000 burst beside the target’s own intake', () => {
  const intake = { calls: 5000, arrivalMs: summarize([1200, 1500, 1900]) };
  it('puts the row of that N beside the intake the limits measured', () => {
    const rows = [row(1000, 1000, 1000, [300]), row(5000, 5000, 5000, [2000, 2400])];
    expect(burstIntakeLine(rows, intake)).toBe(
      'N=5000: lag p50 / p99 2.0 s / 2.4 s beside the target taking 5000 calls sent at once from one process, no scheduler: 1.5 s / 1.9 s',
    );
  });
  it('prints nothing without that row or without the intake', () => {
    expect(burstIntakeLine([row(1000, 1000, 1000, [300])], intake)).toBeUndefined();
    expect(burstIntakeLine([row(5000, 5000, 5000, [2000])], undefined)).toBeUndefined();
  });
});
