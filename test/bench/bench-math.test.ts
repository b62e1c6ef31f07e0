/** The bench's pure arithmetic, with hand-checked figures: percentiles, delivery, cost, item size, capacity plan. */
import { describe, expect, it } from 'vitest';
import { capacityPlan, type Knobs, type MeasuredCounts } from './capacity.ts';
import { costPerMillion, gbSeconds } from './cost.ts';
import { deliveryReport } from './delivery.ts';
import { itemSize, writeUnitsFor } from './item-size.ts';
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
  it('counts lost, duplicate and unexpected calls and the lag of first arrivals', () => {
    const expectation = new Map<string, number[] | 'any-one'>([
      ['A', [1000, 2000, 3000]],
      ['B', 'any-one'],
    ]);
    const report = deliveryReport(
      [
        [1100, 'A:1000'],
        [1150, 'A:1000'], // the same occurrence again
        [2300, 'A:2000'],
        [500, 'B:400'],
        [600, 'B:999'], // a one-shot job called for a second occurrence
        [700, 'C:1'], // nobody's job
      ],
      expectation,
    );
    expect(report).toMatchObject({ expected: 4, calls: 6, delivered: 3, lost: 1, duplicates: 2, unexpected: 1 });
    expect(report.fireLagMs).toMatchObject({ p50: 100, max: 300, count: 3 });
    expect(report.executionsPerSecond).toBeCloseTo(3 / 1.8, 6);
  });

  it('calls a missing occurrence pending, not lost, while work is still in flight', () => {
    const report = deliveryReport([[1100, 'A:1000']], new Map([['A', [1000, 2000]]]), false);
    expect(report).toMatchObject({ delivered: 1, lost: 0, pending: 1 });
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
