/**
 * Lost, duplicate and late calls, from what the target recorded. Every call carries
 * `Idempotency-Key: <jobId>:<scheduledFor>`, so a call names its occurrence and due time.
 */
import { type Summary, summarize } from './stats.ts';

/** Arrival time (epoch ms) and Idempotency-Key of one call, as the target records them. */
export type RecordedCall = [at: number, idempotencyKey: string];

/** Per job: the due times expected to be called, or 'any-one' for exactly one call at any due time. */
export type Expectation = Map<string, number[] | 'any-one'>;

export interface DeliveryReport {
  expected: number;
  calls: number;
  /** Expected occurrences called at least once. */
  delivered: number;
  /** Expected occurrences never called, once the system had settled (nothing left in flight). */
  lost: number;
  /** Expected occurrences not called yet when the time limit ended a run that had not settled: late, maybe lost. */
  pending: number;
  /** Calls beyond the first for the same occurrence. */
  duplicates: number;
  /** Calls for occurrences nobody expected (another job, or a due time off the schedule). */
  unexpected: number;
  /** Arrival minus due time of the first call of each delivered occurrence, ms. */
  fireLagMs: Summary;
  /** Delivered occurrences per second between the first and the last arrival. */
  executionsPerSecond: number;
}

function parseKey(key: string): { jobId: string; due: number } | undefined {
  const at = key.lastIndexOf(':');
  const due = Number(key.slice(at + 1));
  return at > 0 && Number.isFinite(due) ? { jobId: key.slice(0, at), due } : undefined;
}

/**
 * Compares the calls with what was expected. `settled` says the system had nothing left in flight
 * when the calls were read: only then is a missing call lost rather than pending.
 */
export function deliveryReport(
  calls: readonly RecordedCall[],
  expectation: Expectation,
  settled = true,
): DeliveryReport {
  const firstArrival = new Map<string, number>();
  let duplicates = 0;
  let unexpected = 0;
  const anyOneCalled = new Set<string>();
  for (const [at, key] of calls) {
    const parsed = parseKey(key);
    const wanted = parsed ? expectation.get(parsed.jobId) : undefined;
    if (!parsed || wanted === undefined || (wanted !== 'any-one' && !wanted.includes(parsed.due))) {
      unexpected++;
      continue;
    }
    if (wanted === 'any-one' && anyOneCalled.has(parsed.jobId) && !firstArrival.has(key)) {
      duplicates++; // a second occurrence of a job that should fire once
      continue;
    }
    anyOneCalled.add(parsed.jobId);
    const first = firstArrival.get(key);
    if (first === undefined) firstArrival.set(key, at);
    else {
      duplicates++;
      if (at < first) firstArrival.set(key, at);
    }
  }
  let expected = 0;
  for (const wanted of expectation.values()) expected += wanted === 'any-one' ? 1 : wanted.length;
  const lags = [...firstArrival].map(([key, at]) => at - (parseKey(key)?.due ?? at));
  const arrivals = [...firstArrival.values()];
  const span = arrivals.length > 1 ? (Math.max(...arrivals) - Math.min(...arrivals)) / 1000 : 0;
  return {
    expected,
    calls: calls.length,
    delivered: firstArrival.size,
    lost: settled ? expected - firstArrival.size : 0,
    pending: settled ? 0 : expected - firstArrival.size,
    duplicates,
    unexpected,
    fireLagMs: summarize(lags),
    executionsPerSecond: span > 0 ? firstArrival.size / span : 0,
  };
}
