/**
 * The lanes workload's figures (issue #22, measured as issue #15 measures everything), as pure
 * arithmetic on what was recorded: the target's arrival stamps, the due times the workload
 * planned, the runs' `waitedMs` read back, and the counters sampled at the edges of the two
 * flow-control phases (a baseline of plain run-now jobs, then the same number on one key), so
 * that the difference per run is what waiting for the key costs. The workload itself is
 * lanes-workload.ts; the per-call verdict (lost, duplicate, unexpected) is delivery.ts'.
 */
import type { Priority } from '#core/priority';
import type { Verdict } from './report.ts';
import type { Summary } from './stats.ts';
import { BILLED_SQS_ACTIONS, type PhaseSample } from './workflows-report.ts';

/** The bound the test holds the high lane to: every start within 1 s of its due time. */
export const HIGH_START_LAG_LIMIT_MS = 1_000;

export interface LaneFigures {
  runs: number;
  /** Arrival at the target minus the due time, ms (run-now jobs: minus the create's answer). */
  startLagMs: Summary;
}

/** What one flow-control phase cost, per run. */
export interface PerRunCost {
  runs: number;
  writeUnits: number;
  readUnits: number;
  sqsRequests: number;
  /** Executor invocations per run (each is one billed SQS receive). */
  executorInvocations: number;
}

export interface FlowFigures {
  runs: number;
  ratePerSecond: number;
  /** First to last arrival, ms: at least (runs − 1) / rate seconds when the limit holds. */
  spreadMs: number;
  /** Most arrivals in any window of one second. */
  maxInOneSecond: number;
  waitedMs: Summary;
  keyed: PerRunCost;
  baseline: PerRunCost;
}

export interface LanesReport {
  lowFlood: { runs: number; workMs: number };
  lanes: Record<Priority, LaneFigures>;
  flow: FlowFigures;
  loadAverage: number[];
}

/** Arrival minus due of each planned call that arrived (first arrival per path). */
export function startLags(arrivals: ReadonlyMap<string, number>, dueByPath: ReadonlyMap<string, number>): number[] {
  const lags: number[] = [];
  for (const [path, due] of dueByPath) {
    const at = arrivals.get(path);
    if (at !== undefined) lags.push(at - due);
  }
  return lags;
}

/** The first arrival per path (the target records `[at, key, path]`). */
export function firstArrivalByPath(calls: ReadonlyArray<readonly [number, string, string?]>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [at, , path] of calls) {
    const bare = (path ?? '').split('?')[0] as string;
    const seen = out.get(bare);
    if (seen === undefined || at < seen) out.set(bare, at);
  }
  return out;
}

/** The most instants of `times` in any half-open window `[t, t + windowMs)`. */
export function maxInWindow(times: readonly number[], windowMs = 1_000): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while ((sorted[end] as number) - (sorted[start] as number) >= windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

/** One phase's cost per run, from the samples at its edges (receives: one per executor invocation, as profileOf). */
export function perRunCost(before: PhaseSample, after: PhaseSample, runs: number): PerRunCost {
  const delta = (a?: number, b?: number) => (a ?? 0) - (b ?? 0);
  const per = (value: number) => (runs > 0 ? value / runs : Number.NaN);
  const executorInvocations = delta(after.invocations.executor, before.invocations.executor);
  const sqs = BILLED_SQS_ACTIONS.reduce(
    (sum, action) => sum + delta(after.sqsServer[action], before.sqsServer[action]),
    executorInvocations,
  );
  const computed = after.aws.dynamodb.computedWriteUnits - before.aws.dynamodb.computedWriteUnits;
  return {
    runs,
    writeUnits: per(after.aws.dynamodb.writeUnits - before.aws.dynamodb.writeUnits + computed),
    readUnits: per(after.aws.dynamodb.readUnits - before.aws.dynamodb.readUnits),
    sqsRequests: per(sqs),
    executorInvocations: per(executorInvocations),
  };
}

/** PASS/MISS lines: the high lane's starts, the key's rate, and waiting costing less than a run. */
export function lanesVerdicts(report: LanesReport): Verdict[] {
  const out: Verdict[] = [];
  const check = (target: string, measured: number, limit: number) =>
    out.push({ target, workload: 'lanes', measured, limit, pass: Number.isFinite(measured) && measured <= limit });
  check(
    `high lane start lag max ≤ ${HIGH_START_LAG_LIMIT_MS} ms`,
    report.lanes.high.startLagMs.max,
    HIGH_START_LAG_LIMIT_MS,
  );
  const { flow } = report;
  check(`flow-controlled calls in any 1 s ≤ ratePerSecond`, flow.maxInOneSecond, flow.ratePerSecond);
  // At the rate, `runs` calls need (runs − 1) / rate seconds; measured as how much shorter the spread was.
  const floorMs = ((flow.runs - 1) / flow.ratePerSecond) * 1000;
  check('flow-controlled spread shortfall (ms) ≤ 5% of (runs − 1) / rate', floorMs - flow.spreadMs, floorMs * 0.05);
  // "Not re-queued so often that waiting costs more than running": the SQS requests a waiting run
  // adds must stay below what a whole run costs without a key.
  check(
    'SQS requests added by waiting / run ≤ a run’s own',
    flow.keyed.sqsRequests - flow.baseline.sqsRequests,
    flow.baseline.sqsRequests,
  );
  return out;
}

/** Why the workload failed (beyond the per-call verdict): nothing measured for a lane or the key. */
export function lanesFailures(report: LanesReport): string[] {
  const failures: string[] = [];
  for (const [lane, figures] of Object.entries(report.lanes))
    if (figures.runs > 0 && figures.startLagMs.count < figures.runs)
      failures.push(`${figures.runs - figures.startLagMs.count} ${lane} runs never arrived at the target`);
  if (report.flow.runs === 0) failures.push('no flow-controlled run measured');
  return failures;
}

const fmt = (value: number, digits = 2) =>
  Number.isFinite(value) ? value.toLocaleString('en-US', { maximumFractionDigits: digits }) : '–';

export function renderLanesReport(report: LanesReport): string {
  const lines = [
    `Lanes: ${report.lowFlood.runs} low runs against a target that takes ${report.lowFlood.workMs} ms, high and normal trickles meanwhile`,
    '| lane | runs | start lag p50 | p95 | p99 | max |',
    '|---|---|---|---|---|---|',
  ];
  for (const lane of ['high', 'normal', 'low'] as const) {
    const { runs, startLagMs } = report.lanes[lane];
    lines.push(
      `| ${lane} | ${runs} | ${fmt(startLagMs.p50, 0)} ms | ${fmt(startLagMs.p95, 0)} ms | ${fmt(startLagMs.p99, 0)} ms | ${fmt(startLagMs.max, 0)} ms |`,
    );
  }
  const { flow } = report;
  lines.push(
    '',
    `Flow control: ${flow.runs} run-now runs on one key at ratePerSecond ${flow.ratePerSecond}: spread ${fmt(flow.spreadMs / 1000, 1)} s, at most ${flow.maxInOneSecond} calls in any second, waitedMs p50 ${fmt(flow.waitedMs.p50, 0)} / max ${fmt(flow.waitedMs.max, 0)}`,
    '| per run | write units | read units | SQS requests | executor invocations |',
    '|---|---|---|---|---|',
    `| without a key | ${fmt(flow.baseline.writeUnits)} | ${fmt(flow.baseline.readUnits)} | ${fmt(flow.baseline.sqsRequests)} | ${fmt(flow.baseline.executorInvocations)} |`,
    `| on the key | ${fmt(flow.keyed.writeUnits)} | ${fmt(flow.keyed.readUnits)} | ${fmt(flow.keyed.sqsRequests)} | ${fmt(flow.keyed.executorInvocations)} |`,
  );
  return lines.join('\n');
}
