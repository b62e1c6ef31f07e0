import { describe, expect, it } from 'vitest';
import {
  firstArrivalByPath,
  HIGH_START_LAG_LIMIT_MS,
  type LanesReport,
  lanesFailures,
  lanesVerdicts,
  maxInWindow,
  perRunCost,
  startLags,
} from './lanes-report.ts';
import { summarize } from './stats.ts';
import type { PhaseSample } from './workflows-report.ts';

const sampleAt = (at: number, units: { write: number; read: number }, sqs: Record<string, number>, executor: number) =>
  ({
    at,
    aws: {
      requests: {},
      dynamodb: {
        writeUnits: units.write,
        readUnits: units.read,
        computedWriteUnits: 0,
        failedConditionalWrites: 0,
        byTarget: {},
      },
    },
    sqsServer: sqs,
    invocations: { executor },
  }) satisfies PhaseSample;

const report = (overrides: Partial<LanesReport['flow']> = {}, highLags = [10, 20, 900]): LanesReport => ({
  lowFlood: { runs: 100, workMs: 2000 },
  lanes: {
    high: { runs: highLags.length, startLagMs: summarize(highLags) },
    normal: { runs: 1, startLagMs: summarize([5]) },
    low: { runs: 1, startLagMs: summarize([30_000]) },
  },
  flow: {
    runs: 100,
    ratePerSecond: 20,
    spreadMs: 4_990,
    maxInOneSecond: 20,
    waitedMs: summarize([0, 2500, 4950]),
    baseline: { runs: 100, writeUnits: 9, readUnits: 1, sqsRequests: 0.5, executorInvocations: 0.2 },
    keyed: { runs: 100, writeUnits: 11, readUnits: 2, sqsRequests: 0.9, executorInvocations: 0.6 },
    ...overrides,
  },
  loadAverage: [],
});

describe('the lanes report', () => {
  it('counts the most instants in any one-second window, half-open', () => {
    expect(maxInWindow([])).toBe(0);
    expect(maxInWindow([0, 999, 1000])).toBe(2);
    expect(maxInWindow([0, 50, 100, 999, 1000, 1101])).toBe(4);
    expect(maxInWindow([5, 1, 3], 10)).toBe(3);
  });

  it('takes the first arrival per path, query string dropped, and lags only for arrived paths', () => {
    const arrivals = firstArrivalByPath([
      [1500, 'k', '/high/0'],
      [1200, 'k', '/high/0'],
      [3000, 'k', '/low/1?workMs=2000'],
    ]);
    expect(arrivals.get('/high/0')).toBe(1200);
    expect(arrivals.get('/low/1')).toBe(3000);
    const due = new Map([
      ['/high/0', 1000],
      ['/high/1', 1000],
    ]);
    expect(startLags(arrivals, due)).toEqual([200]);
  });

  it('costs a phase per run from its edge samples, one receive per executor invocation', () => {
    const before = sampleAt(0, { write: 100, read: 10 }, { SendMessageBatch: 10, DeleteMessageBatch: 5 }, 10);
    const after = sampleAt(1, { write: 300, read: 60 }, { SendMessageBatch: 30, DeleteMessageBatch: 15 }, 30);
    expect(perRunCost(before, after, 100)).toEqual({
      runs: 100,
      writeUnits: 2,
      readUnits: 0.5,
      sqsRequests: (20 + 10 + 20) / 100,
      executorInvocations: 0.2,
    });
  });

  it('passes a report within the bounds and misses each bound broken', () => {
    const pass = lanesVerdicts(report());
    expect(pass.every((verdict) => verdict.pass)).toBe(true);
    const slowHigh = lanesVerdicts(report({}, [10, HIGH_START_LAG_LIMIT_MS + 1]));
    expect(slowHigh.find((v) => v.target.startsWith('high lane'))?.pass).toBe(false);
    expect(lanesVerdicts(report({ maxInOneSecond: 21 })).find((v) => v.target.includes('any 1 s'))?.pass).toBe(false);
    expect(lanesVerdicts(report({ spreadMs: 4_000 })).find((v) => v.target.includes('spread'))?.pass).toBe(false);
    const costly = report({
      keyed: { runs: 100, writeUnits: 11, readUnits: 2, sqsRequests: 1.2, executorInvocations: 1 },
    });
    expect(lanesVerdicts(costly).find((v) => v.target.includes('waiting'))?.pass).toBe(false);
  });

  it('fails a lane whose runs never arrived and a flow phase that measured nothing', () => {
    const missing = report();
    missing.lanes.high = { runs: 5, startLagMs: summarize([1, 2, 3]) };
    expect(lanesFailures(missing)).toEqual(['2 high runs never arrived at the target']);
    expect(lanesFailures(report({ runs: 0 }))).toEqual(['no flow-controlled run measured']);
    expect(lanesFailures(report())).toEqual([]);
  });
});
