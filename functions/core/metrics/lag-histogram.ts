/**
 * Fixed log-scale latency buckets. Minute buckets store one count per bucket, so any window's
 * percentiles come from merged counts; a percentile is reported as the upper bound of the bucket
 * it falls in (the exact value lies in (previous bound, bound]).
 */

/** Inclusive upper bounds in ms; one more bucket holds everything above the last (up to the 300 s HTTP timeout and beyond). */
export const LAG_BUCKET_BOUNDS_MS = [
  0, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000, 300_000,
] as const;
export const LAG_BUCKET_COUNT = LAG_BUCKET_BOUNDS_MS.length + 1;

export type Histogram = number[];

/** Index of the bucket holding `ms` (negative lags count as 0: released early, started on time). */
export function bucketOf(ms: number): number {
  const index = LAG_BUCKET_BOUNDS_MS.findIndex((bound) => ms <= bound);
  return index === -1 ? LAG_BUCKET_BOUNDS_MS.length : index;
}

/** Upper bound of bucket `index`; null for the overflow bucket (above the last bound). */
export function upperBoundOf(index: number): number | null {
  return LAG_BUCKET_BOUNDS_MS[index] ?? null;
}

export function emptyHistogram(): Histogram {
  return Array.from({ length: LAG_BUCKET_COUNT }, () => 0);
}

/** Element-wise sum. */
export function mergeHistograms(histograms: Histogram[]): Histogram {
  const total = emptyHistogram();
  for (const h of histograms) for (let i = 0; i < LAG_BUCKET_COUNT; i++) total[i] = (total[i] ?? 0) + (h[i] ?? 0);
  return total;
}

/** Nearest-rank position (1-based) of percentile `p` among `n` values: the smallest rank with ≥ p% at or below it. */
export function nearestRank(p: number, n: number): number {
  return Math.max(1, Math.ceil((p / 100) * n));
}

/**
 * The bucket that holds the nearest-rank `p`th percentile; undefined when the histogram is empty.
 * Same definition as `exactPercentile`, so the exact value always lies in the bucket returned.
 */
export function percentileBucket(histogram: Histogram, p: number): number | undefined {
  const n = histogram.reduce((sum, c) => sum + c, 0);
  if (n === 0) return undefined;
  const rank = nearestRank(p, n);
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i] ?? 0;
    if (seen >= rank) return i;
  }
  return histogram.length - 1;
}

/**
 * The `p`th percentile as the upper bound (ms) of the bucket holding it; null when the histogram is
 * empty, or when the percentile lies in the overflow bucket (above the last bound).
 */
export function percentileBound(histogram: Histogram, p: number): number | null {
  const bucket = percentileBucket(histogram, p);
  return bucket === undefined ? null : upperBoundOf(bucket);
}

/** Nearest-rank percentile of raw values (what the histogram approximates); undefined for none. */
export function exactPercentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[nearestRank(p, sorted.length) - 1];
}
