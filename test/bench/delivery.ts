/**
 * Lost, duplicate, late and unexpected calls, from what the target recorded. Every call carries
 * `Idempotency-Key: <jobId>:<scheduledFor ms>`, so a call names its occurrence and due time; a
 * call whose key is not that, or names an occurrence the workload never planned, is unexpected.
 */
import { type Summary, summarize } from './stats.ts';

/** Arrival time (epoch ms), Idempotency-Key and request path of one call, as the target records them. */
export type RecordedCall = [at: number, idempotencyKey: string, path?: string];

/**
 * Exactly one call, for one occurrence due within `[from, to]`: a run-now job, whose occurrence is
 * the instant the API created it, so the window is from sending the create to reading its answer.
 */
export interface OneCallBetween {
  from: number;
  to: number;
}

/** Per job: the due times expected to be called once each, or one call due within a window. */
export type Expectation = Map<string, number[] | OneCallBetween>;

/** What Chronos still had to do when the calls were read (see settle.ts). */
export interface Leftovers {
  /** `<jobId>:<scheduledFor>` of every run not yet in a terminal state. */
  unfinishedRuns: ReadonlySet<string>;
  /** Jobs not yet COMPLETED, FAILED or CANCELLED: occurrences they owe may not be materialized yet. */
  unfinishedJobs: ReadonlySet<string>;
}

export const NOTHING_LEFT: Leftovers = { unfinishedRuns: new Set(), unfinishedJobs: new Set() };

export interface UnexpectedCalls {
  /** Idempotency-Key missing or not `<jobId>:<digits>`. */
  malformedKey: number;
  /** A job the workload did not create. */
  unknownJob: number;
  /** A due time off the job's planned occurrences (or outside a run-now job's creation window). */
  offSchedule: number;
  /** A second, different occurrence of a job planned to be called once. */
  extraOccurrence: number;
  /** A planned occurrence's key on a request to another job's target (path). */
  wrongTarget: number;
}

export interface DeliveryReport {
  expected: number;
  calls: number;
  /** Expected occurrences called at least once. */
  delivered: number;
  /** Expected occurrences never called although Chronos had nothing left to do for them. */
  lost: number;
  /** Expected occurrences never called while Chronos still owed them (a live run, an unfinished job): late past the bound. */
  pending: number;
  /** Calls beyond the first for the same occurrence. */
  duplicates: number;
  /** Calls nobody planned; `unexpectedBy` says which kind. */
  unexpected: number;
  unexpectedBy: UnexpectedCalls;
  /** Arrival minus due time of the first call of each delivered occurrence, ms. */
  fireLagMs: Summary;
  /** Delivered occurrences per second between the first and the last arrival. */
  executionsPerSecond: number;
}

/** Chronos' job ids (ULIDs) and occurrence times, as `idempotencyKeyOf` writes them. */
const KEY = /^([0-9A-Za-z]+):(\d{1,16})$/;

export function parseKey(key: string): { jobId: string; due: number } | undefined {
  const match = KEY.exec(key);
  return match ? { jobId: match[1] as string, due: Number(match[2]) } : undefined;
}

const isWindow = (wanted: number[] | OneCallBetween): wanted is OneCallBetween => !Array.isArray(wanted);

/**
 * Compares the calls with what was expected. A missing occurrence is `pending` when `leftovers`
 * shows Chronos still working on it (a run not terminal, or its job not finished), `lost` otherwise;
 * the bench fails on either (report.ts, benchFailures).
 */
export function deliveryReport(
  calls: readonly RecordedCall[],
  expectation: Expectation,
  leftovers: Leftovers = NOTHING_LEFT,
  /** Per job, the path of its target URL: a call elsewhere with its key is unexpected. */
  targetPaths: ReadonlyMap<string, string> = new Map(),
): DeliveryReport {
  const firstArrival = new Map<string, number>();
  /** The occurrence a one-call job was called for first. */
  const calledOnceFor = new Map<string, string>();
  let duplicates = 0;
  const unexpectedBy: UnexpectedCalls = {
    malformedKey: 0,
    unknownJob: 0,
    offSchedule: 0,
    extraOccurrence: 0,
    wrongTarget: 0,
  };
  for (const [at, key, path] of calls) {
    const parsed = parseKey(key);
    if (!parsed) {
      unexpectedBy.malformedKey++;
      continue;
    }
    const wanted = expectation.get(parsed.jobId);
    if (wanted === undefined) {
      unexpectedBy.unknownJob++;
      continue;
    }
    const planned = isWindow(wanted)
      ? parsed.due >= wanted.from && parsed.due <= wanted.to
      : wanted.includes(parsed.due);
    if (!planned) {
      unexpectedBy.offSchedule++;
      continue;
    }
    const targetPath = targetPaths.get(parsed.jobId);
    if (targetPath !== undefined && path !== targetPath) {
      unexpectedBy.wrongTarget++; // the right occurrence, called on another job's target
      continue;
    }
    if (isWindow(wanted)) {
      const first = calledOnceFor.get(parsed.jobId);
      if (first !== undefined && first !== key) {
        unexpectedBy.extraOccurrence++; // a job that should fire once, called for a second occurrence
        continue;
      }
      calledOnceFor.set(parsed.jobId, key);
    }
    const first = firstArrival.get(key);
    if (first === undefined) firstArrival.set(key, at);
    else {
      duplicates++;
      if (at < first) firstArrival.set(key, at);
    }
  }

  let expected = 0;
  let lost = 0;
  let pending = 0;
  const jobsWithUnfinishedRuns = new Set([...leftovers.unfinishedRuns].map((run) => parseKey(run)?.jobId));
  const stillOwed = (jobId: string, due?: number) =>
    leftovers.unfinishedJobs.has(jobId) ||
    (due === undefined ? jobsWithUnfinishedRuns.has(jobId) : leftovers.unfinishedRuns.has(`${jobId}:${due}`));
  const missing = (jobId: string, due?: number) => {
    if (stillOwed(jobId, due)) pending++;
    else lost++;
  };
  for (const [jobId, wanted] of expectation) {
    if (isWindow(wanted)) {
      expected++;
      if (!calledOnceFor.has(jobId)) missing(jobId);
      continue;
    }
    expected += wanted.length;
    for (const due of wanted) if (!firstArrival.has(`${jobId}:${due}`)) missing(jobId, due);
  }

  const lags = [...firstArrival].map(([key, at]) => at - (parseKey(key)?.due ?? at));
  const arrivals = [...firstArrival.values()];
  const span = arrivals.length > 1 ? (Math.max(...arrivals) - Math.min(...arrivals)) / 1000 : 0;
  const unexpected = Object.values(unexpectedBy).reduce((sum, n) => sum + n, 0);
  return {
    expected,
    calls: calls.length,
    delivered: firstArrival.size,
    lost,
    pending,
    duplicates,
    unexpected,
    unexpectedBy,
    fireLagMs: summarize(lags),
    executionsPerSecond: span > 0 ? firstArrival.size / span : 0,
  };
}
