/**
 * Issue #15's steady target: fire lag p99 ≤ 1 s for steady load at any rate up to half the
 * measured ceiling, and the highest steady rate that keeps p99 ≤ 1 s. Each rate runs in its own
 * process on fresh emulators (`npm run bench -- --only rates`): R recurring jobs every second for
 * 20 s, with the precision mode's settings (early release, pollers up to 100).
 */
import { createJobs } from './api-load.ts';
import type { HarnessConfig } from './harness.ts';
import { PRECISION_CONFIG } from './precision.ts';
import type { Verdict, WorkloadResult } from './report.ts';
import type { Workload } from './workloads.ts';

/** Executions per second tried, lowest first (× --scale). */
export const STEADY_RATES = [25, 50, 100, 150, 200] as const;
/** Occurrences of each job: the rate is held this many seconds. */
export const STEADY_RATE_SECONDS = 20;
export const STEADY_LAG_LIMIT_MS = 1_000;
/** The rates at or below this share of the ceiling must all keep p99 within the limit. */
export const CEILING_SHARE = 0.5;

const RATE_CONFIG: HarnessConfig = { ...PRECISION_CONFIG, scanHorizonSeconds: 15 };

const nextWholeSecond = (at: number) => Math.ceil(at / 1000) * 1000;
const iso = (at: number) => new Date(at).toISOString();

export function steadyRateWorkload(rate: number): Workload {
  return {
    description: `${rate} recurring jobs every second for ${STEADY_RATE_SECONDS} s (steady rate ${rate}/s)`,
    config: RATE_CONFIG,
    drainMs: 20_000,
    async drive(harness, _scale, progress) {
      const startAt = nextWholeSecond(Date.now() + 25_000);
      const target = harness.target.ready.url;
      const created = await createJobs(harness.chronos, rate, 16, (i) => ({
        target: { url: `${target}/rate/${i}` },
        schedule: { type: 'interval', everySeconds: 1, startAt: iso(startAt), maxRuns: STEADY_RATE_SECONDS },
      }));
      const dues = Array.from({ length: STEADY_RATE_SECONDS }, (_, k) => startAt + k * 1000);
      progress(`created ${created.jobIds.length} recurring jobs; first due ${iso(startAt)}`);
      const late = created.windows.filter((window) => window.to > startAt).length;
      return {
        expectation: new Map(created.jobIds.map((id) => [id, dues])),
        targetPaths: new Map(created.jobIds.map((id, i) => [id, new URL(created.targetUrls[i] as string).pathname])),
        created,
        lastDue: dues[dues.length - 1] as number,
        ...(late > 0 ? { setupProblem: `${late} jobs were created after their first planned occurrence` } : {}),
      };
    },
  };
}

/** One rate's figures: every planned call made, and its fire lag. */
export interface RateRow {
  rate: number;
  made: number;
  expected: number;
  p99Ms: number;
  executionsPerSecond: number;
}

export function rateRowOf(result: WorkloadResult, rate: number): RateRow {
  const { delivery } = result;
  return {
    rate,
    made: delivery.delivered,
    expected: delivery.expected,
    p99Ms: delivery.fireLagMs.p99,
    executionsPerSecond: delivery.executionsPerSecond,
  };
}

const holds = (row: RateRow) => row.made === row.expected && row.p99Ms <= STEADY_LAG_LIMIT_MS;

/** The highest rate tried that kept every call and p99 within the limit (0: none). */
export function highestSteadyRate(rows: readonly RateRow[]): number {
  return Math.max(0, ...rows.filter(holds).map((row) => row.rate));
}

/**
 * The ceiling: the most executions per second any workload of the run delivered (the burst and
 * run-now workloads push as hard as they can); without them, the rates' own best.
 */
export function measuredCeiling(results: readonly WorkloadResult[], rows: readonly RateRow[]): number {
  const pushed = results.filter((r) => r.mode === 'burst' || r.mode === 'immediate');
  const from =
    pushed.length > 0 ? pushed.map((r) => r.delivery.executionsPerSecond) : rows.map((r) => r.executionsPerSecond);
  return Math.max(0, ...from);
}

/** PASS when every rate tried up to CEILING_SHARE of the ceiling held, and at least one such rate was tried. */
export function steadyRateVerdicts(rows: readonly RateRow[], ceiling: number): Verdict[] {
  if (rows.length === 0) return [];
  const limit = ceiling * CEILING_SHARE;
  const within = rows.filter((row) => row.rate <= limit);
  const failing = within.filter((row) => !holds(row));
  const highest = highestSteadyRate(rows);
  return [
    {
      target: `steady fire lag p99 ≤ ${STEADY_LAG_LIMIT_MS} ms up to ${CEILING_SHARE * 100}% of the ceiling (${Math.round(ceiling)}/s)`,
      workload: `rates ${rows.map((row) => row.rate).join(', ')}/s`,
      // Measured: the highest rate that held; the limit: half the ceiling.
      measured: highest,
      limit: Math.round(limit),
      pass: within.length > 0 && failing.length === 0,
    },
  ];
}

export function renderRateTable(rows: readonly RateRow[], ceiling: number): string {
  const lines = [
    `steady rates: R recurring jobs every second for ${STEADY_RATE_SECONDS} s; ceiling ${Math.round(ceiling)} executions/s`,
    '| rate /s | made / planned | lag p99 | executions/s | holds p99 ≤ 1 s |',
    '|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.rate} | ${row.made} / ${row.expected} | ${row.p99Ms} ms | ${row.executionsPerSecond.toFixed(0)} | ${holds(row) ? 'yes' : 'no'} |`,
    ),
    `highest steady rate with p99 ≤ 1 s: ${highestSteadyRate(rows)}/s`,
  ];
  return lines.join('\n');
}
