import { describe, expect, it } from 'vitest';
import {
  bucketOf,
  emptyHistogram,
  exactPercentile,
  LAG_BUCKET_BOUNDS_MS,
  mergeHistograms,
  percentileBucket,
  upperBoundOf,
} from '#core/metrics/lag-histogram';

function histogramOf(values: number[]) {
  const h = emptyHistogram();
  for (const v of values) h[bucketOf(v)] = (h[bucketOf(v)] ?? 0) + 1;
  return h;
}

describe('lag histogram', () => {
  it('puts a value in the first bucket whose upper bound holds it, negatives in the first', () => {
    expect(bucketOf(-300)).toBe(0);
    expect(bucketOf(0)).toBe(0);
    expect(bucketOf(1)).toBe(1);
    expect(bucketOf(10)).toBe(1);
    expect(bucketOf(11)).toBe(2);
    expect(upperBoundOf(bucketOf(999))).toBe(1_000);
    expect(bucketOf(300_001)).toBe(LAG_BUCKET_BOUNDS_MS.length);
    expect(upperBoundOf(LAG_BUCKET_BOUNDS_MS.length)).toBeNull();
  });

  it('finds the bucket that holds the exact nearest-rank percentile, for any data', () => {
    // A deterministic spread of lags from 0 to 20 s, with repeats and bucket-boundary values.
    const values = Array.from({ length: 437 }, (_, i) => (i * 7919) % 20_011).concat([10, 25, 25, 1_000]);
    const histogram = histogramOf(values);
    for (const p of [1, 50, 90, 95, 99, 100]) {
      const exact = exactPercentile(values, p) as number;
      expect(percentileBucket(histogram, p), `p${p}`).toBe(bucketOf(exact));
    }
  });

  it('merges minute histograms cell by cell', () => {
    const merged = mergeHistograms([histogramOf([5, 300]), histogramOf([5, 70_000])]);
    expect(merged[bucketOf(5)]).toBe(2);
    expect(merged[bucketOf(300)]).toBe(1);
    expect(merged[bucketOf(70_000)]).toBe(1);
    expect(merged.reduce((a, b) => a + b, 0)).toBe(4);
  });

  it('has no percentile for no data', () => {
    expect(percentileBucket(emptyHistogram(), 50)).toBeUndefined();
    expect(exactPercentile([], 50)).toBeUndefined();
  });
});
