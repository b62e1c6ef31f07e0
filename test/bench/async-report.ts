/**
 * The async workload's figures (issue #20), as pure arithmetic on what was recorded: the target's
 * log of its workers' callbacks, the runs as they ended, and the AWS request counter sampled every
 * second. Write units per heartbeat come from a window of the run in which heartbeats were the only
 * work (every run accepted, every silent worker's run already ended, no completion sent yet): the
 * counter's difference across it divided by the heartbeat invocations in it. The workload itself
 * is async-workload.ts; the strict verdict on it is asyncFailures (report.ts' benchFailures).
 */
import { isTerminal, type RunStatus } from '#core/run-state';
import type { CounterSnapshot } from './aws-request-counter.ts';
import { type Summary, summarize } from './stats.ts';

/** What the async workload sets up; the target's workers follow it (async-target-process.ts). */
export interface AsyncPlan {
  runs: number;
  /** Runs whose worker goes silent after its first heartbeat (to measure detection). */
  silent: number;
  heartbeatEveryMs: number;
  /** How long a healthy worker works (heartbeating) before it completes its run. */
  workMs: number;
  heartbeatTimeoutSeconds: number;
  scannerIntervalMs: number;
  /** Most callbacks the target's workers have in flight at once (keep-alive sockets). */
  poolSize: number;
}

/** One callback the target's workers sent: when, what came back, and how long it took. */
export interface CallbackRecord {
  /** The run's Idempotency-Key (`<jobId>:<due ms>`). */
  key: string;
  kind: 'heartbeat' | 'complete';
  sentAt: number;
  answeredAt: number;
  /** HTTP status; 0 when no answer came (connection refused, reset, timed out). */
  status: number;
}

export interface CallbackCounts {
  sent: number;
  /** Answered 200. */
  ok: number;
  /** Anything else, by status (`0`: no answer at all). */
  notOkByStatus: Record<string, number>;
  notOk: number;
  /** Sent to answered, ms. */
  latencyMs: Summary;
}

/** Counts one kind of callback. */
export function callbackCounts(records: readonly CallbackRecord[], kind: CallbackRecord['kind']): CallbackCounts {
  const mine = records.filter((record) => record.kind === kind);
  const notOkByStatus: Record<string, number> = {};
  for (const { status } of mine) if (status !== 200) notOkByStatus[status] = (notOkByStatus[status] ?? 0) + 1;
  const notOk = Object.values(notOkByStatus).reduce((sum, n) => sum + n, 0);
  return {
    sent: mine.length,
    ok: mine.length - notOk,
    notOkByStatus,
    notOk,
    latencyMs: summarize(mine.map((record) => record.answeredAt - record.sentAt)),
  };
}

/** A run item as the bench reads it back after the workload (epoch ms). */
export interface EndedRun {
  jobId: string;
  scheduledFor: number;
  attempt: number;
  status: string;
  errorType?: string;
  completedAt?: number;
  heartbeatDeadline?: number;
}

export interface AsyncEnds {
  /** Healthy workers' runs that ended SUCCEEDED. */
  succeeded: number;
  /** Silent workers' runs that ended TIMED_OUT with errorType heartbeat_timeout. */
  heartbeatTimedOut: number;
  /** Runs not in a terminal state (RUNNING, QUEUED...). */
  unended: number;
  /** Runs of the workload's jobs that ended otherwise than planned, `<status>/<errorType> <jobId>`. */
  wrongEnds: string[];
  /** Attempts beyond the first (the jobs have no retries: any is a second owner of the work). */
  extraAttempts: number;
  /** Jobs of the workload with no run at all. */
  missingRuns: number;
  /** completedAt − heartbeatDeadline of each heartbeat_timeout end: how long the missed deadline went unnoticed. */
  detectionDelayMs: Summary;
  /** The latest completedAt of those ends (epoch ms). */
  lastDetectionAt: number;
}

/**
 * How the workload's runs ended, against the plan: every healthy job's single run SUCCEEDED,
 * every silent job's single run TIMED_OUT by heartbeat_timeout; and the detection delays.
 */
export function asyncEnds(
  runs: readonly EndedRun[],
  healthyJobs: ReadonlySet<string>,
  silentJobs: ReadonlySet<string>,
): AsyncEnds {
  const ends: Omit<AsyncEnds, 'detectionDelayMs' | 'lastDetectionAt'> = {
    succeeded: 0,
    heartbeatTimedOut: 0,
    unended: 0,
    wrongEnds: [],
    extraAttempts: 0,
    missingRuns: 0,
  };
  const delays: number[] = [];
  let lastDetectionAt = Number.NaN;
  const seen = new Set<string>();
  for (const run of runs) {
    const healthy = healthyJobs.has(run.jobId);
    const silent = silentJobs.has(run.jobId);
    if (!healthy && !silent) continue;
    seen.add(run.jobId);
    if (run.attempt > 1) ends.extraAttempts++;
    if (!isTerminal(run.status as RunStatus)) {
      ends.unended++;
      continue;
    }
    if (healthy && run.status === 'SUCCEEDED') ends.succeeded++;
    else if (silent && run.status === 'TIMED_OUT' && run.errorType === 'heartbeat_timeout') {
      ends.heartbeatTimedOut++;
      if (run.completedAt !== undefined && run.heartbeatDeadline !== undefined) {
        delays.push(run.completedAt - run.heartbeatDeadline);
        lastDetectionAt = Number.isNaN(lastDetectionAt) ? run.completedAt : Math.max(lastDetectionAt, run.completedAt);
      }
    } else ends.wrongEnds.push(`${run.status}/${run.errorType ?? '-'} ${run.jobId}${silent ? ' (silent worker)' : ''}`);
  }
  for (const jobId of [...healthyJobs, ...silentJobs]) if (!seen.has(jobId)) ends.missingRuns++;
  return { ...ends, detectionDelayMs: summarize(delays), lastDetectionAt };
}

/** The AWS request counter and the handlers' invocation counts at one instant of the run. */
export interface CounterSample {
  at: number;
  aws: CounterSnapshot;
  /** Invocations per function name (the HandlerMeter's), e.g. `api:callback-heartbeat`, `completion`. */
  invocations: Record<string, number>;
}

/** Heartbeats-only stretches shorter than this are too short to divide by. */
export const MIN_WINDOW_MS = 5_000;
/**
 * Kept clear after the last initial call and the last silent run's end: the executor's write of a
 * 202, the completion handler's reading of an end from the stream and the job's finish follow them.
 */
export const WINDOW_MARGIN_MS = 3_000;

export interface WindowBounds {
  /** The last call of the workload reached the target (epoch ms). */
  lastCallAt: number;
  /** The last heartbeat_timeout end was recorded (NaN when there was none). */
  lastDetectionAt: number;
  /** The first completion was sent (NaN when none was). */
  firstCompleteAt: number;
}

/** The stretch in which heartbeats were the workload's only work, or why there was none. */
export function heartbeatWindow(
  bounds: WindowBounds,
  marginMs = WINDOW_MARGIN_MS,
): { from: number; to: number } | { problem: string } {
  if (!Number.isFinite(bounds.firstCompleteAt)) return { problem: 'no completion was sent' };
  const from =
    Math.max(bounds.lastCallAt, Number.isFinite(bounds.lastDetectionAt) ? bounds.lastDetectionAt : 0) + marginMs;
  const to = bounds.firstCompleteAt;
  if (to - from < MIN_WINDOW_MS)
    return {
      problem: `heartbeats were never alone for ${MIN_WINDOW_MS / 1000} s (from ${new Date(from).toISOString()} to the first completion ${new Date(to).toISOString()})`,
    };
  return { from, to };
}

export interface HeartbeatCost {
  window: { from: string; to: string; ms: number };
  /** Heartbeat handler invocations within the window (answered or not). */
  heartbeats: number;
  /** Per heartbeat: DynamoDB write units, reported + computed (failed conditional writes). */
  writeUnits: number;
  reportedWriteUnits: number;
  computedWriteUnits: number;
  readUnits: number;
  /** Per heartbeat, by table and index. */
  unitsByTarget: Record<string, { write: number; read: number }>;
  /** Per heartbeat, AWS requests by `Service.Operation`. */
  requests: Record<string, number>;
  /** Per heartbeat, invocations of every function that ran in the window. */
  invocations: Record<string, number>;
}

/**
 * The cost of one heartbeat: the difference of the first sample at or after the window's start
 * and the last at or before its end, divided by the heartbeat invocations between them. Everything
 * else running then (the scanner's passes) is in the figure too, and shown by table.
 */
export function heartbeatCost(
  samples: readonly CounterSample[],
  window: { from: number; to: number },
  heartbeatFunction: string,
): HeartbeatCost | { problem: string } {
  const first = samples.find((sample) => sample.at >= window.from);
  const last = [...samples].reverse().find((sample) => sample.at <= window.to);
  if (!first || !last || last.at - first.at < MIN_WINDOW_MS)
    return { problem: `fewer than ${MIN_WINDOW_MS / 1000} s of samples inside the heartbeat window` };
  const heartbeats = (last.invocations[heartbeatFunction] ?? 0) - (first.invocations[heartbeatFunction] ?? 0);
  if (heartbeats <= 0) return { problem: `no ${heartbeatFunction} invocation inside the heartbeat window` };
  const per = (value: number) => value / heartbeats;
  const a = first.aws.dynamodb;
  const b = last.aws.dynamodb;
  const differences = (before: Record<string, number>, after: Record<string, number>) =>
    Object.fromEntries(
      Object.entries(after)
        .map(([name, count]) => [name, per(count - (before[name] ?? 0))] as const)
        .filter(([, value]) => value > 0),
    );
  const unitsByTarget: HeartbeatCost['unitsByTarget'] = {};
  for (const [target, units] of Object.entries(b.byTarget)) {
    const before = a.byTarget[target] ?? { write: 0, read: 0 };
    const write = per(units.write - before.write);
    const read = per(units.read - before.read);
    if (write > 0 || read > 0) unitsByTarget[target] = { write, read };
  }
  const reported = b.writeUnits - a.writeUnits;
  const computed = b.computedWriteUnits - a.computedWriteUnits;
  return {
    window: { from: new Date(first.at).toISOString(), to: new Date(last.at).toISOString(), ms: last.at - first.at },
    heartbeats,
    writeUnits: per(reported + computed),
    reportedWriteUnits: per(reported),
    computedWriteUnits: per(computed),
    readUnits: per(b.readUnits - a.readUnits),
    unitsByTarget,
    requests: differences(first.aws.requests, last.aws.requests),
    invocations: differences(first.invocations, last.invocations),
  };
}

/** The async block of a workload result. */
export interface AsyncReport {
  plan: AsyncPlan;
  /** Runs the target took with 202 (distinct occurrences called with a callback URL). */
  accepted: number;
  /** Calls without a Chronos-Callback-Url header (answered 200, not taken): each is a failure. */
  callsWithoutCallbackUrl: number;
  heartbeats: CallbackCounts;
  completions: CallbackCounts;
  ends: AsyncEnds;
  /** Write units and the rest per heartbeat, or why the heartbeats were never measured alone. */
  heartbeatCost: HeartbeatCost | { problem: string };
}

/** Heartbeats a worker sends: one every `heartbeatEveryMs` while it works (a silent one: its first only). */
export function plannedHeartbeats(plan: AsyncPlan): number {
  const perHealthyWorker = Math.ceil(plan.workMs / plan.heartbeatEveryMs) - 1;
  return (plan.runs - plan.silent) * perHealthyWorker + plan.silent;
}

/**
 * Why the async workload fails the bench, empty when it passes: a run not taken, a callback not
 * answered 200, a heartbeat or completion short of the plan, a run that ended otherwise than
 * planned or not at all, a second attempt, and heartbeats never measured alone.
 */
export function asyncFailures(report: AsyncReport): string[] {
  const out: string[] = [];
  const { plan, ends } = report;
  const healthy = plan.runs - plan.silent;
  const statuses = (counts: CallbackCounts) =>
    Object.entries(counts.notOkByStatus)
      .map(([status, n]) => `${status === '0' ? 'no answer' : status} × ${n}`)
      .join(', ');
  if (report.accepted < plan.runs) out.push(`${plan.runs - report.accepted} of ${plan.runs} runs never taken with 202`);
  if (report.accepted > plan.runs) out.push(`${report.accepted - plan.runs} runs taken more than planned`);
  if (report.callsWithoutCallbackUrl > 0)
    out.push(`${report.callsWithoutCallbackUrl} calls of async jobs without a Chronos-Callback-Url`);
  if (report.heartbeats.notOk > 0)
    out.push(`${report.heartbeats.notOk} heartbeats not answered 200 (${statuses(report.heartbeats)})`);
  const heartbeatsPlanned = plannedHeartbeats(plan);
  if (report.heartbeats.sent !== heartbeatsPlanned)
    out.push(`${report.heartbeats.sent} heartbeats sent, ${heartbeatsPlanned} planned`);
  if (report.completions.notOk > 0)
    out.push(`${report.completions.notOk} completions not answered 200 (${statuses(report.completions)})`);
  if (report.completions.sent !== healthy) out.push(`${report.completions.sent} completions sent, ${healthy} planned`);
  if (ends.succeeded !== healthy) out.push(`${ends.succeeded} of ${healthy} completed runs ended SUCCEEDED`);
  if (ends.heartbeatTimedOut !== plan.silent)
    out.push(`${ends.heartbeatTimedOut} of ${plan.silent} silent workers' runs ended TIMED_OUT by heartbeat_timeout`);
  if (ends.unended > 0) out.push(`${ends.unended} runs never ended (still RUNNING or QUEUED)`);
  if (ends.wrongEnds.length > 0)
    out.push(`${ends.wrongEnds.length} runs ended otherwise than planned (${ends.wrongEnds.slice(0, 3).join('; ')})`);
  if (ends.extraAttempts > 0) out.push(`${ends.extraAttempts} extra attempts (the jobs have no retries)`);
  if (ends.missingRuns > 0) out.push(`${ends.missingRuns} jobs without a run`);
  if ('problem' in report.heartbeatCost) out.push(`the harness, not Chronos: ${report.heartbeatCost.problem}`);
  return out;
}

export interface AsyncVerdict {
  target: string;
  workload: string;
  measured: number;
  limit: number;
  pass: boolean;
}

/**
 * Issue #20's detection bound: a missed heartbeat ends the run within heartbeatTimeoutSeconds +
 * one scanner interval, i.e. completedAt − heartbeatDeadline ≤ the scanner interval (the max; a
 * workload without silent workers cannot pass it).
 */
export function asyncVerdicts(report: AsyncReport): AsyncVerdict[] {
  const measured = report.ends.detectionDelayMs.max;
  const limit = report.plan.scannerIntervalMs;
  return [
    {
      target: `missed heartbeat detected ≤ ${limit} ms after its deadline (max)`,
      workload: 'async',
      measured,
      limit,
      pass: Number.isFinite(measured) && measured <= limit,
    },
  ];
}

const fmt = (value: number, digits = 2) =>
  Number.isFinite(value) ? value.toLocaleString('en-US', { maximumFractionDigits: digits }) : '–';
const ms = (summary: Summary, pick: Array<keyof Summary>) => pick.map((p) => fmt(summary[p], 0)).join(' / ');

/** The async workload's lines of the printed report. */
export function renderAsyncReport(report: AsyncReport): string {
  const { plan, heartbeats, completions, ends, heartbeatCost: cost } = report;
  const lines = [
    `async: ${plan.runs} async runs (${plan.silent} with a worker silent after its first heartbeat), a heartbeat every ` +
      `${plan.heartbeatEveryMs / 1000} s for ${plan.workMs / 1000} s, heartbeatTimeoutSeconds ${plan.heartbeatTimeoutSeconds}, ` +
      `scanner every ${plan.scannerIntervalMs / 1000} s, ${plan.poolSize} worker connections`,
    `  runs taken with 202: ${report.accepted} / ${plan.runs}`,
    `  heartbeats sent / answered 200 / other: ${heartbeats.sent} / ${heartbeats.ok} / ${heartbeats.notOk}` +
      `; round trip p50 / p99 / max ms ${ms(heartbeats.latencyMs, ['p50', 'p99', 'max'])}`,
    `  completions sent / answered 200 / other: ${completions.sent} / ${completions.ok} / ${completions.notOk}` +
      `; round trip p50 / p99 ms ${ms(completions.latencyMs, ['p50', 'p99'])}`,
    `  ended: SUCCEEDED ${ends.succeeded}, TIMED_OUT heartbeat_timeout ${ends.heartbeatTimedOut}, not ended ${ends.unended}, ` +
      `otherwise ${ends.wrongEnds.length}, extra attempts ${ends.extraAttempts}`,
    `  missed-heartbeat detection (completedAt − heartbeatDeadline) p50 / p99 / max ms: ` +
      `${ms(ends.detectionDelayMs, ['p50', 'p99', 'max'])} (scanner interval ${fmt(plan.scannerIntervalMs, 0)} ms)`,
  ];
  if ('problem' in cost) lines.push(`  write units per heartbeat: not measured: ${cost.problem}`);
  else {
    lines.push(
      `  per heartbeat (${cost.heartbeats} heartbeats alone in ${fmt(cost.window.ms / 1000, 1)} s, ` +
        `${fmt(cost.heartbeats / (cost.window.ms / 1000), 0)}/s): DynamoDB WU ` +
        `${fmt(cost.writeUnits, 3)} (${fmt(cost.reportedWriteUnits, 3)} reported + ${fmt(cost.computedWriteUnits, 3)} computed), ` +
        `RU ${fmt(cost.readUnits, 3)}`,
    );
    for (const [target, units] of Object.entries(cost.unitsByTarget).sort())
      lines.push(
        `    WU / RU on ${target.replace('chronos-local-', '')}: ${fmt(units.write, 3)} / ${fmt(units.read, 3)}`,
      );
    lines.push(
      `    invocations: ${Object.entries(cost.invocations)
        .sort()
        .map(([name, n]) => `${name} ${fmt(n, 3)}`)
        .join(', ')}`,
      `    requests: ${Object.entries(cost.requests)
        .sort()
        .map(([name, n]) => `${name} ${fmt(n, 3)}`)
        .join(', ')}`,
    );
  }
  return lines.join('\n');
}
