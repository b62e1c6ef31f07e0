/**
 * The precision workload of issue #15: N one-time jobs all due at the same second, created well
 * ahead so that only the scanner path is involved (the scanner materializes them, SQS holds them
 * until their second, the executors call). One fresh local Chronos per N, in its own process
 * (workload-process.ts `precision <N>`). This file holds the workload and the pure arithmetic
 * that turns what the target recorded into the issue's table and its PASS/MISS lines; the strict
 * verdict on lost, duplicate and unexpected calls is the bench's own (delivery.ts, benchFailures).
 */

import type { Expectation, RecordedCall } from './delivery.ts';
import { parseKey } from './delivery.ts';
import { createJobsDirectly } from './direct-create.ts';
import type { HarnessConfig } from './harness.ts';
import { type Summary, summarize } from './stats.ts';
import type { Workload } from './workloads.ts';

/** The issue's table rows, and the bench's 5,000 burst with early release (scaled by `--scale`). */
export const PRECISION_SIZES = [8, 64, 200, 500, 1000, 5000] as const;

/**
 * Issue #15's precision targets: lag p99 limit (ms) by the N of the issue's table, and the 5,000
 * burst's 3 s (here with early release; the burst workload keeps the deployed defaults).
 */
export const PRECISION_TARGETS: ReadonlyMap<number, number> = new Map([
  [200, 250],
  [1000, 1000],
  [5000, 3000],
]);

/**
 * On time: the call reached the target at its due second or within the second after it
 * (0 ≤ arrival − due ≤ 1,000 ms). A call before its due time is early, not on time: Chronos must
 * never call ahead of the schedule (SQS may release a message up to a second early; the executor
 * waits out the rest).
 */
export const ON_TIME_MS = 1_000;

/**
 * Scanner every 5 s with a 30 s horizon. Runs are released early and a burst spread over the
 * seconds before it (core/release-spread.ts) at about the rate this machine's executors claim
 * runs, so each is claimed before its due second and only the call is made at it; executor pollers
 * scale up to 200, so that runs waiting for their second (batches are not always full) do not keep
 * the rest from being received. Enough for N ≤ 1,200 (8 s of lead at 150 a second); larger N:
 * precisionConfig.
 */
export const PRECISION_CONFIG: HarnessConfig = {
  scannerIntervalMs: 5_000,
  scanHorizonSeconds: 30,
  sqsConcurrency: 200,
  releaseSpread: { baseLeadMs: 1_000, readyPerSecond: 150, maxLeadMs: 8_000 },
};

/**
 * Due time = planned end of creation + this, rounded up to a whole second: more than one scanner
 * interval, so the scanner's first pass after creation materializes every job at least 7 s ahead
 * (the horizon, 30 s, covers it), and a slow pass shows as lag rather than being hidden.
 */
export const PRECISION_LEAD_MS = 12_000;

/**
 * The configuration for `count` jobs due in one second: PRECISION_CONFIG while its spread releases
 * them all before the due second; beyond, the same rate a second over as many seconds as the count
 * needs (5,000: 35 s), pollers enough to hold every released run waiting in batches a quarter
 * short of full, and a horizon that materializes the runs a scanner interval before their release.
 */
export function precisionConfig(count: number): HarnessConfig {
  const { releaseSpread, scannerIntervalMs, scanHorizonSeconds, sqsConcurrency } = PRECISION_CONFIG;
  if (!releaseSpread) throw new Error('PRECISION_CONFIG releases in the second before: nothing to spread');
  const neededLeadMs = releaseSpread.baseLeadMs + Math.ceil(count / releaseSpread.readyPerSecond) * 1000;
  if (neededLeadMs <= releaseSpread.maxLeadMs + 1000) return PRECISION_CONFIG;
  return {
    ...PRECISION_CONFIG,
    releaseSpread: { ...releaseSpread, maxLeadMs: neededLeadMs },
    sqsConcurrency: Math.max(sqsConcurrency, Math.ceil((count / 10) * 1.25)),
    scanHorizonSeconds: Math.max(scanHorizonSeconds, Math.ceil((neededLeadMs + 2 * scannerIntervalMs) / 1000)),
  };
}

/**
 * How much longer than PRECISION_CONFIG a configuration releases runs ahead: added to the lead
 * planned after creation and to the least lead accepted, so the scanner still has a pass before the
 * first release.
 */
export function extraReleaseLeadMs(config: HarnessConfig): number {
  const base = PRECISION_CONFIG.releaseSpread?.maxLeadMs ?? 0;
  return Math.max(0, (config.releaseSpread?.maxLeadMs ?? 0) - base);
}

/** Less lead than this once creation ended (a scanner interval and 2 s) and the plan overran. */
export const PRECISION_MIN_LEAD_MS = 7_000;

/**
 * How long the system may take to settle after the calls: 20 s, or 12 ms per run for more than
 * 1,666. Every completion of a burst is due at once and the local completion handler reads the
 * runs table's one stream shard a batch at a time, as Lambda reads a shard (measured: 5,000 runs
 * finished their jobs in about 45 s on DynamoDB Local).
 */
export function precisionSettleMs(count: number): number {
  return Math.max(20_000, count * 12);
}

/** The precision figures of one N, from the calls the target recorded. */
export interface PrecisionRow {
  /** The issue's N (before `--scale`). */
  baseN: number;
  /** Jobs created and expected to be called once each. */
  n: number;
  /** Expected occurrences called at least once. */
  made: number;
  /** First calls arrived within [due, due + ON_TIME_MS]. */
  onTime: number;
  /** First calls arrived before their due time. */
  early: number;
  /** Arrival minus due time of each expected occurrence's first call, ms. */
  lagMs: Summary;
}

/** Per expected `<jobId>:<due ms>`, the first arrival; calls nobody expected are left to deliveryReport. */
function firstArrivals(calls: readonly RecordedCall[], expectation: Expectation): Map<string, number> {
  const first = new Map<string, number>();
  for (const [at, key] of calls) {
    const parsed = parseKey(key);
    const wanted = parsed && expectation.get(parsed.jobId);
    if (!parsed || !Array.isArray(wanted) || !wanted.includes(parsed.due)) continue;
    const seen = first.get(key);
    if (seen === undefined || at < seen) first.set(key, at);
  }
  return first;
}

/** The row of one N: calls made, on time, early, and the lag of first arrivals. */
export function precisionRow(
  baseN: number,
  calls: readonly RecordedCall[],
  expectation: Expectation,
  onTimeMs = ON_TIME_MS,
): PrecisionRow {
  let n = 0;
  for (const wanted of expectation.values()) n += Array.isArray(wanted) ? wanted.length : 1;
  const lags = [...firstArrivals(calls, expectation)].map(([key, at]) => at - (parseKey(key)?.due ?? at));
  return {
    baseN,
    n,
    made: lags.length,
    onTime: lags.filter((lag) => lag >= 0 && lag <= onTimeMs).length,
    early: lags.filter((lag) => lag < 0).length,
    lagMs: summarize(lags),
  };
}

/** What a run's stored timestamps say about where its lag went (runs table fields). */
export interface RunStamps {
  scheduledFor: number;
  /** The scanner pass's clock when it materialized the run (the pass's start, not its write). */
  createdAt?: number;
  /** SQS SentTimestamp of the message the run was executed from. */
  enqueuedAt?: number;
  receivedAt?: number;
  claimedAt?: number;
  startedAt?: number;
}

/** Each stage of the runs relative to their due time: where the lag comes from. */
export interface StageLags {
  /** Least time between a scanner pass that materialized a run and its due time (the latest pass). */
  materializedAheadMinMs: number;
  /** Least time between a run's message reaching SQS and its due time (the scanner's last send). */
  sentAheadMinMs: number;
  /** First receive by an executor (SQS ApproximateFirstReceiveTimestamp) − due. */
  receivedMs: Summary;
  /** Claim written − due. */
  claimedMs: Summary;
  /** HTTP request started − due. */
  startedMs: Summary;
}

export function stageLags(runs: readonly RunStamps[]): StageLags {
  const after = (pick: (run: RunStamps) => number | undefined) =>
    runs.flatMap((run) => {
      const at = pick(run);
      return at === undefined ? [] : [at - run.scheduledFor];
    });
  const leastAhead = (pick: (run: RunStamps) => number | undefined) => {
    const ahead = after(pick).map((lag) => -lag);
    return ahead.length ? Math.min(...ahead) : Number.NaN;
  };
  return {
    materializedAheadMinMs: leastAhead((run) => run.createdAt),
    sentAheadMinMs: leastAhead((run) => run.enqueuedAt),
    receivedMs: summarize(after((run) => run.receivedAt)),
    claimedMs: summarize(after((run) => run.claimedAt)),
    startedMs: summarize(after((run) => run.startedAt)),
  };
}

const fmtMs = (ms: number) => {
  if (!Number.isFinite(ms)) return '–';
  return Math.abs(ms) >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
};

/** The issue's table (N | calls on time | lag p50 | lag p99), in Markdown, and a detail table. */
export function renderPrecisionTable(rows: readonly PrecisionRow[], stages: ReadonlyArray<StageLags | undefined> = []) {
  const onTimeCell = (row: PrecisionRow) =>
    row.onTime === row.n ? String(row.onTime) : `${row.onTime} of ${row.n} (made ${row.made})`;
  const lines = [
    `precision: N one-time jobs due in the same second, scanner path; on time = arrival within ${fmtMs(ON_TIME_MS)} after the due second, never before`,
    '| N | calls on time | lag p50 | lag p99 |',
    '|---|---|---|---|',
    ...rows.map((row) => `| ${row.n} | ${onTimeCell(row)} | ${fmtMs(row.lagMs.p50)} | ${fmtMs(row.lagMs.p99)} |`),
    '',
    '| N | made / N | early | lag max | materialized / sent ahead (min) | received p50 / p99 | claimed p50 / p99 | started p50 / p99 |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map((row, i) => {
      const s = stages[i];
      const pair = (summary?: Summary) => (summary ? `${fmtMs(summary.p50)} / ${fmtMs(summary.p99)}` : '–');
      return (
        `| ${row.n} | ${row.made} / ${row.n} | ${row.early} | ${fmtMs(row.lagMs.max)} | ` +
        `${s ? `${fmtMs(s.materializedAheadMinMs)} / ${fmtMs(s.sentAheadMinMs)}` : '–'} | ` +
        `${pair(s?.receivedMs)} | ${pair(s?.claimedMs)} | ${pair(s?.startedMs)} |`
      );
    }),
  ];
  return lines.join('\n');
}

/**
 * The row whose N is the burst the limits sent the target at once, beside that intake: the floor of
 * its lag on this machine once every run is claimed before its second (the calls themselves, one
 * process sending them, the target on the same cores taking them in). Undefined without either.
 */
export function burstIntakeLine(
  rows: readonly PrecisionRow[],
  intake: { calls: number; arrivalMs: Summary } | undefined,
): string | undefined {
  const row = intake && rows.find((candidate) => candidate.n === intake.calls);
  if (!row || !intake) return undefined;
  return (
    `N=${row.n}: lag p50 / p99 ${fmtMs(row.lagMs.p50)} / ${fmtMs(row.lagMs.p99)} beside the target taking ` +
    `${intake.calls} calls sent at once from one process, no scheduler: ${fmtMs(intake.arrivalMs.p50)} / ${fmtMs(intake.arrivalMs.p99)}`
  );
}

export interface PrecisionVerdict {
  target: string;
  workload: string;
  measured: number;
  limit: number;
  pass: boolean;
}

/**
 * PASS/MISS for the issue's precision targets: lag p99 ≤ 250 ms at N = 200 and ≤ 1 s at N = 1,000
 * (the rows of those N, scaled or not). A row that made fewer calls than N cannot pass: its p99
 * leaves the missing calls out. Missing calls also fail the bench itself (benchFailures).
 */
export function precisionVerdicts(rows: readonly PrecisionRow[]): PrecisionVerdict[] {
  return rows.flatMap((row) => {
    const limit = PRECISION_TARGETS.get(row.baseN);
    if (limit === undefined) return [];
    const measured = row.made === row.n ? row.lagMs.p99 : Number.POSITIVE_INFINITY;
    return [
      {
        target: `precision lag p99 ≤ ${limit} ms (every call made)`,
        workload: `N=${row.n}${row.n === row.baseN ? '' : ` (${row.baseN} scaled)`}`,
        measured,
        limit,
        pass: Number.isFinite(measured) && measured <= limit,
      },
    ];
  });
}

/**
 * The physical floor of a burst's lag, as issue #15 defines it: executions × the minimal DynamoDB
 * requests each needs before its call ÷ the writes/s DynamoDB Local did in the same run (limits
 * mode, raw PutItem/s). No design that makes those requests after the due second can finish the
 * burst sooner.
 */
export function physicalFloorMs(executions: number, requestsBeforeCall: number, writesPerSecond: number): number {
  if (!(writesPerSecond > 0)) return Number.NaN;
  return ((executions * requestsBeforeCall) / writesPerSecond) * 1000;
}

/**
 * The minimal DynamoDB requests before one call: the claim, a conditional write that must land
 * before the call for the at-most-one-call-per-claim guarantee. The run record is written at
 * materialization, ahead of the due second; the job read can ride in the message.
 */
export const MIN_REQUESTS_BEFORE_CALL = 1;

const nextWholeSecond = (at: number) => Math.ceil(at / 1000) * 1000;

/** Creates per ms the plan allows for (about twice what a quiet 2-core machine takes), plus a fixed start. */
const CREATE_BUDGET_MS = (count: number) => 3_000 + count * 8;

/**
 * The workload for the issue's `baseN`. Jobs are created through the create-job use case with
 * creation-time materialization off: exactly what a create far ahead of its due time stores,
 * without waiting a whole horizon out; the scanner does the rest. The due second is planned from
 * a creation budget; a creation that overran it (less than PRECISION_MIN_LEAD_MS left) is a
 * setup problem, which fails the bench naming the harness.
 */
export function precisionWorkload(baseN: number, scale: number): Workload {
  // The same scale the workload process passes to `drive`: the count is fixed here, once.
  const count = Math.max(1, Math.round(baseN * scale));
  const config = precisionConfig(count);
  return {
    description: `${baseN} one-time jobs all due at the same second (scanner path, precision)`,
    config,
    drainMs: 30_000,
    settleMs: precisionSettleMs(count),
    async drive(harness, _scale, progress) {
      const target = harness.target.ready.url;
      const extraLeadMs = extraReleaseLeadMs(config);
      const due = nextWholeSecond(Date.now() + CREATE_BUDGET_MS(count) + PRECISION_LEAD_MS + extraLeadMs);
      const startedAt = performance.now();
      const jobIds = await createJobsDirectly(
        harness.chronos.tenantId,
        count,
        32,
        (i) => ({
          target: { url: `${target}/precision/${i}` },
          schedule: { type: 'once', at: new Date(due).toISOString() },
        }),
        { materializeAtCreation: false },
      );
      const createdAt = Date.now();
      const durationMs = performance.now() - startedAt;
      progress(
        `created ${jobIds.length} jobs in ${Math.round(durationMs)} ms; all due at ${new Date(due).toISOString()}`,
      );
      const lead = due - createdAt;
      return {
        expectation: new Map(jobIds.map((id) => [id, [due]])),
        targetPaths: new Map(jobIds.map((id, i) => [id, `/precision/${i}`])),
        created: { jobIds, windows: [], targetUrls: [], latenciesMs: [], failures: 0, durationMs },
        lastDue: due,
        ...(lead < PRECISION_MIN_LEAD_MS + extraLeadMs
          ? {
              setupProblem: `creation ended ${lead} ms before the due second (planned ≥ ${PRECISION_MIN_LEAD_MS + extraLeadMs} ms): the scanner may not have had a pass ahead of the first release`,
            }
          : {}),
      };
    },
  };
}
