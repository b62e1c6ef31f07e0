/**
 * Turns the raw measurements into per-execution figures, costs and target verdicts, and prints
 * them as one table. Everything here is arithmetic on counted values; nothing is estimated
 * except where a field says so (computed write units of failed conditional writes).
 */
import { type AsyncReport, asyncFailures } from './async-report.ts';
import type { CounterSnapshot } from './aws-request-counter.ts';
import { ALTERNATIVES_PER_MILLION, type CostPerMillion, costPerMillion, gbSeconds, type PerExecution } from './cost.ts';
import type { DeliveryReport } from './delivery.ts';
import type { FunctionStats } from './handler-meter.ts';
import type { HarnessConfig } from './harness.ts';
import { type LanesReport, lanesFailures } from './lanes-report.ts';
import type { Limits } from './limits.ts';
import { MIN_REQUESTS_BEFORE_CALL, type PrecisionRow, physicalFloorMs, type StageLags } from './precision.ts';
import type { Summary } from './stats.ts';
import { type WorkflowsReport, workflowsFailures } from './workflows-report.ts';

/** Memory the functions are deployed with (lib/constructs/chronos-function.ts default). */
export const FUNCTION_MEMORY_MB = 256;
const SCHEDULER_FUNCTIONS = ['scanner', 'executor', 'completion'] as const;
/** SQS actions billed per execution (ReceiveMessage is counted per executor invocation instead). */
const BILLED_SQS_ACTIONS = [
  'SendMessage',
  'SendMessageBatch',
  'DeleteMessage',
  'DeleteMessageBatch',
  'ChangeMessageVisibility',
  'ChangeMessageVisibilityBatch',
];

export interface WorkloadResult {
  mode: 'burst' | 'steady' | 'immediate' | 'precision' | 'rate' | 'async' | 'workflows' | 'lanes';
  description: string;
  config: HarnessConfig;
  scale: number;
  wallMs: number;
  created: { count: number; failures: number; firstFailure?: string; durationMs: number; latencyMs: Summary };
  /** Set when the setup overran the workload's plan, so the expected calls are not the planned ones. */
  setupProblem?: string;
  delivery: DeliveryReport;
  /** Whether the system had finished when the calls were read, and what was left if not (settle.ts). */
  settle: { settled: boolean; waitedMs: number; limitMs: number; state: string };
  aws: CounterSnapshot;
  sqsServerRequests: Record<string, number>;
  handlers: Record<string, FunctionStats>;
  processCpuMs: number;
  logBytes: number;
  /** The handlers' warning and error lines by message. */
  warningsByMessage?: Record<string, number>;
  loadAverage?: number[];
  /** Connections the kernel dropped from a full listen queue during the workload (target-backlog.ts); Linux only. */
  listenOverflows?: number;
  loggedProblems: { count: number; first: string[] };
  /** The precision mode's row of the issue's table, and where its lag went (precision.ts). */
  precision?: { row: PrecisionRow; stages: StageLags };
  /** The async mode's callbacks, ends, detection delay and cost per heartbeat (async-report.ts). */
  async?: AsyncReport;
  /** The workflows mode's cost per task and per workflow run by shape, hops and ends (workflows-report.ts). */
  workflows?: WorkflowsReport;
  /** The lanes mode's start lag per priority lane and the cost of waiting for a flow-control key (lanes-report.ts). */
  lanes?: LanesReport;
}

export interface CpuProbeResult {
  jobs: number;
  calls: number;
  idleCpuMsPerSecond: number;
  /** awsRequestsPerExecution: requests by `Service.Operation` the executor window made, per execution. */
  executor: FunctionStats & { cpuMsPerExecution: number; awsRequestsPerExecution?: Record<string, number> };
  completion: FunctionStats & { cpuMsPerRecord: number };
}

export interface ExecutionProfile extends PerExecution {
  executions: number;
  /** Requests by `Service.Operation` per execution (handlers' SDK clients). */
  requests: Record<string, number>;
  reportedWriteUnits: number;
  computedWriteUnits: number;
  /** Reported units per table and index, per execution. */
  unitsByTarget: Record<string, { write: number; read: number }>;
  /** Empty ReceiveMessage long polls of the pollers over the whole run (not per execution). */
  idleReceives: number;
  invocations: Record<'scanner' | 'executor' | 'completion' | 'api' | 'authorizer', number>;
  /** Mean wall time of one executor invocation, ms (what its concurrency is made of). */
  executorInvocationMs: number;
  /** Bench-process CPU per execution: API, scanner, executor, completion, pollers, SDK (not emulators, not target). */
  processCpuMs: number;
}

const per = (value: number, n: number) => (n > 0 ? value / n : Number.NaN);

/** The per-execution profile of one workload. */
export function profileOf(result: WorkloadResult, memoryMb = FUNCTION_MEMORY_MB): ExecutionProfile {
  const n = result.delivery.delivered;
  const stats = (name: string) => result.handlers[name] ?? { invocations: 0, wallMs: 0, records: 0 };
  const executorInvocations = stats('executor').invocations;
  const server = result.sqsServerRequests;
  const billedSqs = BILLED_SQS_ACTIONS.reduce((sum, action) => sum + (server[action] ?? 0), 0) + executorInvocations;
  const schedulerInvocations = SCHEDULER_FUNCTIONS.reduce((sum, name) => sum + stats(name).invocations, 0);
  const schedulerWallMs = SCHEDULER_FUNCTIONS.reduce((sum, name) => sum + stats(name).wallMs, 0);
  const apiInvocations = Object.entries(result.handlers)
    .filter(([name]) => name.startsWith('api:'))
    .reduce((sum, [, s]) => sum + s.invocations, 0);
  const { dynamodb } = result.aws;
  return {
    executions: n,
    writeUnits: per(dynamodb.writeUnits + dynamodb.computedWriteUnits, n),
    readUnits: per(dynamodb.readUnits, n),
    reportedWriteUnits: per(dynamodb.writeUnits, n),
    computedWriteUnits: per(dynamodb.computedWriteUnits, n),
    unitsByTarget: Object.fromEntries(
      Object.entries(dynamodb.byTarget).map(([target, u]) => [
        target,
        { write: per(u.write, n), read: per(u.read, n) },
      ]),
    ),
    sqsRequests: per(billedSqs, n),
    idleReceives: Math.max(0, (server.ReceiveMessage ?? 0) - executorInvocations),
    lambdaInvocations: per(schedulerInvocations, n),
    lambdaGbSeconds: per(gbSeconds(schedulerWallMs, memoryMb), n),
    // Every job is one create request in production, whichever way the bench created it.
    apiRequests: per(result.created.count, n),
    logBytes: per(result.logBytes, n),
    requests: Object.fromEntries(Object.entries(result.aws.requests).map(([op, count]) => [op, per(count, n)])),
    invocations: {
      scanner: per(stats('scanner').invocations, n),
      executor: per(executorInvocations, n),
      completion: per(stats('completion').invocations, n),
      api: per(apiInvocations, n),
      authorizer: per(stats('authorizer').invocations, n),
    },
    executorInvocationMs: per(stats('executor').wallMs, executorInvocations),
    processCpuMs: per(result.processCpuMs, n),
  };
}

export interface Verdict {
  target: string;
  workload: string;
  measured: number;
  limit: number;
  pass: boolean;
}

/** PASS/MISS for every target of the issue that these results speak to. */
export function verdicts(results: WorkloadResult[], cpu?: CpuProbeResult): Verdict[] {
  const out: Verdict[] = [];
  const check = (target: string, workload: string, measured: number, limit: number) =>
    out.push({ target, workload, measured, limit, pass: Number.isFinite(measured) && measured <= limit });
  for (const result of results) {
    const profile = profileOf(result);
    // Issue #15's precision targets: the 5,000 burst within 3 s, steady load within 1 s.
    if (result.mode === 'burst') check('fire lag p99 ≤ 3000 ms', result.mode, result.delivery.fireLagMs.p99, 3000);
    if (result.mode === 'steady') check('fire lag p99 ≤ 1000 ms', result.mode, result.delivery.fireLagMs.p99, 1000);
    check('API creates failed = 0', result.mode, result.created.failures, 0);
    check('lost calls = 0', result.mode, result.delivery.lost, 0);
    check('all calls made within the time limit (pending = 0)', result.mode, result.delivery.pending, 0);
    check('duplicate calls = 0', result.mode, result.delivery.duplicates, 0);
    check('unexpected calls = 0 (unplanned occurrence, bad key)', result.mode, result.delivery.unexpected, 0);
    // Per-execution targets are for one call per run: an async run is heartbeats too (async-report.ts).
    if (['steady', 'async', 'workflows', 'lanes'].includes(result.mode)) continue;
    check('DynamoDB write units / one-time execution ≤ 4', result.mode, profile.writeUnits, 4);
    check('DynamoDB read units / one-time execution ≤ 1', result.mode, profile.readUnits, 1);
    check('SQS requests / one-time execution ≤ 0.3', result.mode, profile.sqsRequests, 0.3);
    check('Lambda invocations / one-time execution ≤ 0.2', result.mode, profile.lambdaInvocations, 0.2);
  }
  if (cpu) check('executor CPU / execution ≤ 1 ms', 'cpu probe', cpu.executor.cpuMsPerExecution, 1);
  return out;
}

/**
 * Why the bench fails, empty when it passes: a measurement that crashed or timed out; a workload
 * whose setup overran its plan, that created fewer jobs than planned or measured nothing; a call
 * lost, still pending at the deadline, duplicated or unplanned; a system that had not settled; and
 * for the async workload, a run not taken, a callback not answered 200, a run ended otherwise than
 * planned or not at all (async-report.ts, asyncFailures). Missed performance targets are not failures (they are MISS verdicts).
 */
export function benchFailures(
  results: ReadonlyArray<
    Pick<WorkloadResult, 'mode' | 'created' | 'delivery' | 'settle' | 'setupProblem' | 'async' | 'workflows' | 'lanes'>
  >,
  errors: readonly string[],
): string[] {
  const failures = [...errors];
  for (const { mode, created, delivery, settle, setupProblem, async, workflows, lanes } of results) {
    const fail = (what: string) => failures.push(`${mode}: ${what}`);
    if (setupProblem) fail(`the harness, not Chronos: ${setupProblem}`);
    if (created.failures > 0) fail(`${created.failures} job creates failed (${created.firstFailure ?? 'no detail'})`);
    if (created.count === 0 || delivery.expected === 0) fail('no job created or no call expected: measured nothing');
    if (delivery.lost > 0) fail(`${delivery.lost} calls lost (Chronos had nothing left to do for them)`);
    if (delivery.pending > 0) fail(`${delivery.pending} calls still pending at the deadline (Chronos still owed them)`);
    if (delivery.duplicates > 0) fail(`${delivery.duplicates} duplicate calls`);
    if (delivery.unexpected > 0) {
      const kinds = Object.entries(delivery.unexpectedBy ?? {})
        .filter(([, n]) => n > 0)
        .map(([kind, n]) => `${kind} ${n}`);
      fail(`${delivery.unexpected} unexpected calls (${kinds.join(', ') || 'kind unknown'})`);
    }
    if (!settle?.settled) {
      fail(`not settled ${settle ? `after ${settle.limitMs / 1000} s: ${settle.state}` : '(no settle evidence)'}`);
    }
    if (mode === 'async' && !async) fail('no async figures (the workload measured nothing of its callbacks)');
    for (const failure of async ? asyncFailures(async) : []) fail(failure);
    if (mode === 'workflows' && !workflows) fail('no workflows figures (the workload measured nothing of its runs)');
    for (const failure of workflows ? workflowsFailures(workflows) : []) fail(failure);
    if (mode === 'lanes' && !lanes) fail('no lanes figures (the workload measured nothing of its lanes)');
    for (const failure of lanes ? lanesFailures(lanes) : []) fail(failure);
  }
  return failures;
}

const fmt = (value: number, digits = 2) =>
  Number.isFinite(value) ? value.toLocaleString('en-US', { maximumFractionDigits: digits }) : '–';

/** The one table: a row per figure, a column per workload. */
export function renderTable(results: WorkloadResult[], limits?: Limits, cpu?: CpuProbeResult): string {
  const profiles = results.map((r) => profileOf(r));
  const costs: CostPerMillion[] = profiles.map((p) => costPerMillion(p));
  const rows: Array<[string, ...string[]]> = [];
  const row = (label: string, pick: (r: WorkloadResult, p: ExecutionProfile, c: CostPerMillion) => string) =>
    rows.push([label, ...results.map((r, i) => pick(r, profiles[i] as ExecutionProfile, costs[i] as CostPerMillion))]);
  row('jobs created (failures)', (r) => `${r.created.count} (${r.created.failures})`);
  row(
    'API create latency p50 / p99 ms',
    (r) => `${fmt(r.created.latencyMs.p50, 0)} / ${fmt(r.created.latencyMs.p99, 0)}`,
  );
  row('executions delivered / expected', (r) => `${r.delivery.delivered} / ${r.delivery.expected}`);
  row(
    'lost / pending / duplicate / unexpected calls',
    (r) => `${r.delivery.lost} / ${r.delivery.pending} / ${r.delivery.duplicates} / ${r.delivery.unexpected}`,
  );
  row(
    'settled (waited s)',
    (r) => `${r.settle?.settled ? 'yes' : 'NO'} (${fmt((r.settle?.waitedMs ?? Number.NaN) / 1000, 1)})`,
  );
  row('fire lag p50 / p95 ms', (r) => `${fmt(r.delivery.fireLagMs.p50, 0)} / ${fmt(r.delivery.fireLagMs.p95, 0)}`);
  row('fire lag p99 / max ms', (r) => `${fmt(r.delivery.fireLagMs.p99, 0)} / ${fmt(r.delivery.fireLagMs.max, 0)}`);
  row('executions/s (first→last call)', (r) => fmt(r.delivery.executionsPerSecond, 0));
  row(
    'DynamoDB WU / exec (reported + computed)',
    (_, p) => `${fmt(p.writeUnits)} (${fmt(p.reportedWriteUnits)} + ${fmt(p.computedWriteUnits)})`,
  );
  row('DynamoDB RU / exec', (_, p) => fmt(p.readUnits));
  for (const target of [...new Set(profiles.flatMap((p) => Object.keys(p.unitsByTarget)))].sort()) {
    row(`  WU / RU on ${target.replace('chronos-local-', '')}`, (_, p) => {
      const u = p.unitsByTarget[target];
      return u ? `${fmt(u.write)} / ${fmt(u.read)}` : '–';
    });
  }
  row('SQS billed requests / exec', (_, p) => fmt(p.sqsRequests));
  row('  idle empty receives (whole run)', (_, p) => fmt(p.idleReceives, 0));
  row('Lambda invocations / exec (sched.)', (_, p) => fmt(p.lambdaInvocations, 3));
  row('  executor / completion / scanner', (_, p) =>
    [p.invocations.executor, p.invocations.completion, p.invocations.scanner].map((v) => fmt(v, 3)).join(' / '),
  );
  row('  API / authorizer (uncached)', (_, p) => `${fmt(p.invocations.api, 3)} / ${fmt(p.invocations.authorizer, 3)}`);
  row('executor invocation wall ms (mean)', (_, p) => fmt(p.executorInvocationMs, 0));
  row('Lambda GB-s / exec @256 MB (local wall)', (_, p) => fmt(p.lambdaGbSeconds, 4));
  row('bench process CPU ms / exec', (_, p) => fmt(p.processCpuMs));
  row('handler log bytes / exec', (_, p) => fmt(p.logBytes, 0));
  const ops = [...new Set(profiles.flatMap((p) => Object.keys(p.requests)))].sort();
  for (const op of ops) row(`  ${op} / exec`, (_, p) => fmt(p.requests[op] ?? 0, 3));
  row('$ / M exec: DynamoDB W + R', (_, __, c) => `${fmt(c.dynamodbWrites)} + ${fmt(c.dynamodbReads)}`);
  row('$ / M exec: SQS', (_, __, c) => fmt(c.sqs));
  row('$ / M exec: Lambda req + GB-s', (_, __, c) => `${fmt(c.lambdaRequests)} + ${fmt(c.lambdaDuration)}`);
  row('$ / M exec: scheduler core', (_, __, c) => fmt(c.core));
  row('$ / M exec: + API GW + logs', (_, __, c) => `${fmt(c.apiGateway)} + ${fmt(c.logs)} = ${fmt(c.all)}`);

  const header: [string, ...string[]] = ['', ...results.map((r) => r.mode)];
  const all = [header, ...rows];
  const widths = header.map((_, col) => Math.max(...all.map((line) => (line[col] ?? '').length)));
  const line = (cells: string[]) => cells.map((cell, col) => cell.padEnd(widths[col] ?? 0)).join(' │ ');
  const out = [line(header), widths.map((w) => '─'.repeat(w)).join('─┼─'), ...rows.map(line)];
  out.push(
    '',
    `hosted, $ / M: ${Object.entries(ALTERNATIVES_PER_MILLION)
      .map(([k, v]) => `${k} ${fmt(v)}`)
      .join(', ')}`,
  );
  if (cpu) {
    out.push(
      `CPU probe (${cpu.jobs} runs, one invocation at a time, idle ${fmt(cpu.idleCpuMsPerSecond, 1)} ms/s subtracted): ` +
        `executor ${fmt(cpu.executor.cpuMsPerExecution, 3)} ms/exec (batch mean ${fmt(cpu.executor.records / Math.max(1, cpu.executor.invocations), 1)}), ` +
        `completion ${fmt(cpu.completion.cpuMsPerRecord, 3)} ms/record`,
    );
  }
  if (limits) {
    out.push(
      `limits (same run): target direct ${fmt(limits.targetCallsPerSecond, 0)} calls/s; DynamoDB Local raw PutItem ` +
        `${fmt(limits.dynamodbPutItemPerSecond, 0)}/s; fauxqs send+receive+delete ${fmt(limits.fauxqsSendReceiveDeletePerSecond, 0)}/s`,
    );
    for (const result of results) {
      const dynamoRequests = Object.entries(result.aws.requests)
        .filter(([op]) => op.startsWith('DynamoDB.'))
        .reduce((sum, [, count]) => sum + count, 0);
      out.push(
        `  ${result.mode}: ${fmt(result.delivery.executionsPerSecond / limits.targetCallsPerSecond, 3)} of the target's direct rate; ` +
          `${fmt(dynamoRequests / result.delivery.delivered, 1)} DynamoDB requests/exec → ceiling ≈ ` +
          `${fmt(limits.dynamodbPutItemPerSecond / (dynamoRequests / result.delivery.delivered), 0)} exec/s on this DynamoDB Local`,
      );
    }
    for (const result of results.filter((r) => r.mode === 'burst')) {
      const floor = physicalFloorOf(result, limits);
      out.push(
        `  burst fire lag p99 ${fmt(result.delivery.fireLagMs.p99 / 1000, 2)} s beside its physical floor ${fmt(floor.floorMs / 1000, 2)} s ` +
          `(${floor.executions} executions × ${floor.requestsBeforeCall} DynamoDB request before the call ÷ ` +
          `${fmt(floor.writesPerSecond, 0)} PutItem/s measured in this run)`,
      );
    }
  }
  return out.join('\n');
}

/**
 * A workload's physical floor (issue #15): its executions × the minimal DynamoDB requests before a
 * call ÷ the raw PutItem/s DynamoDB Local did in the same run (limits mode).
 */
export function physicalFloorOf(
  result: Pick<WorkloadResult, 'delivery'>,
  limits: Pick<Limits, 'dynamodbPutItemPerSecond'>,
) {
  const executions = result.delivery.expected;
  const writesPerSecond = limits.dynamodbPutItemPerSecond;
  return {
    executions,
    requestsBeforeCall: MIN_REQUESTS_BEFORE_CALL,
    writesPerSecond,
    floorMs: physicalFloorMs(executions, MIN_REQUESTS_BEFORE_CALL, writesPerSecond),
  };
}

/** PASS/MISS lines. */
export function renderVerdicts(list: Verdict[]): string {
  return list
    .map(
      (v) =>
        `${v.pass ? 'PASS' : 'MISS'}  ${v.target.padEnd(48)} ${v.workload.padEnd(10)} measured ${fmt(v.measured, 3)}`,
    )
    .join('\n');
}
