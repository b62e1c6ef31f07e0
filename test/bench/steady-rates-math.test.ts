import { describe, expect, it } from 'vitest';
import type { WorkloadResult } from './report.ts';
import { highestSteadyRate, measuredCeiling, type RateRow, steadyRateVerdicts } from './steady-rates.ts';

const row = (rate: number, p99Ms: number, made = rate * 20): RateRow => ({
  rate,
  made,
  expected: rate * 20,
  p99Ms,
  executionsPerSecond: rate,
});

const pushed = (mode: WorkloadResult['mode'], executionsPerSecond: number) =>
  ({ mode, delivery: { executionsPerSecond } }) as WorkloadResult;

describe('steady rates (issue #15: p99 ≤ 1 s up to half the ceiling)', () => {
  it('the highest steady rate is the highest that made every call with p99 ≤ 1 s', () => {
    expect(highestSteadyRate([row(25, 40), row(50, 90), row(100, 700), row(150, 1_400), row(200, 900)])).toBe(200);
    expect(highestSteadyRate([row(25, 40), row(50, 90, 999)])).toBe(25);
    expect(highestSteadyRate([row(25, 1_001)])).toBe(0);
  });

  it('the ceiling is the best the pushing workloads delivered, else the rates own best', () => {
    expect(measuredCeiling([pushed('burst', 180), pushed('immediate', 240), pushed('steady', 999)], [])).toBe(240);
    expect(measuredCeiling([], [row(25, 10), row(150, 2_000)])).toBe(150);
  });

  it('passes when every rate up to half the ceiling held', () => {
    const [verdict] = steadyRateVerdicts([row(25, 40), row(50, 90), row(100, 700), row(150, 3_000)], 200);
    expect(verdict?.pass).toBe(true);
    expect(verdict?.limit).toBe(100);
    expect(verdict?.measured).toBe(100);
  });

  it('fails when a rate within half the ceiling missed its lag, or lost a call', () => {
    expect(steadyRateVerdicts([row(25, 40), row(50, 1_200), row(100, 700)], 200)[0]?.pass).toBe(false);
    expect(steadyRateVerdicts([row(25, 40), row(50, 90, 999), row(100, 700)], 200)[0]?.pass).toBe(false);
  });

  it('fails when no rate tried is within half the ceiling (nothing shows the target held)', () => {
    expect(steadyRateVerdicts([row(150, 100), row(200, 100)], 200)[0]?.pass).toBe(false);
  });

  it('says nothing without rates', () => {
    expect(steadyRateVerdicts([], 200)).toEqual([]);
  });
});
