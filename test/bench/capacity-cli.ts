/**
 * `npm run capacity`: the capacity plan for 10,000 executions/s and for 2 billion a day, from the
 * newest bench result (test/bench/results/) and the deployment's knobs. Any knob can be changed:
 *
 *   npm run capacity -- --workload burst --dueShardCount 64 --executorMaxConcurrency 1000
 *   npm run capacity -- --results test/bench/results/2026-01-01.json --targetLatencyMs 250
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMPLETION_BATCH_SIZE, COMPLETION_RECORDS_PER_RUN, EXECUTOR_BATCH_SIZE } from '#core/limits';
import { AWS_LIMITS, type CapacityPlan, capacityPlan, type Knobs, type MeasuredCounts } from './capacity.ts';
import type { ExecutionProfile } from './report.ts';

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
};
const numberOption = (name: string, fallback: number) => Number(option(name) ?? fallback);

const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
const newest = readdirSync(resultsDir)
  .filter((f) => /^\d{4}-\d{2}-\d{2}\.json$/.test(f))
  .sort()
  .at(-1);
const resultsPath = option('results') ?? (newest ? join(resultsDir, newest) : undefined);
if (!resultsPath)
  throw new Error('no bench result in test/bench/results: run `npm run bench` first, or pass --results');
const workload = option('workload') ?? 'burst';
const results = JSON.parse(readFileSync(resultsPath, 'utf8')) as {
  summary: Array<{ mode: string; profile: ExecutionProfile }>;
};
const profile = results.summary.find((s) => s.mode === workload)?.profile;
if (!profile) throw new Error(`${resultsPath} has no ${workload} workload`);

const unitsOn = (suffix: string) =>
  Object.entries(profile.unitsByTarget)
    .filter(([target]) => target.endsWith(suffix))
    .reduce((sum, [, units]) => sum + units.write, 0);

/**
 * Every request the materialize protocol makes per due one-time job: run put, job advance, and
 * 3/100 for the page (its due-index query, its dispatch intent's put and removal).
 */
const SCANNER_REQUESTS_PER_RUN = 2 + 3 / 100;
const counts: MeasuredCounts = {
  ...profile,
  // Failed conditional writes (computed units) land on the tables; count them with the table writes.
  jobsTableWriteUnits: unitsOn('-jobs') + profile.computedWriteUnits,
  dueIndexWriteUnits: unitsOn('/due-index'),
  runsTableWriteUnits: unitsOn('-runs'),
  sweepIndexWriteUnits: unitsOn('/sweep-index'),
  executorInvocations: numberOption(
    'executorInvocationsPerExecution',
    1 / numberOption('executorBatchSize', EXECUTOR_BATCH_SIZE),
  ),
  completionInvocations: numberOption(
    'completionInvocationsPerExecution',
    COMPLETION_RECORDS_PER_RUN / COMPLETION_BATCH_SIZE,
  ),
  scannerRequestsPerRun: SCANNER_REQUESTS_PER_RUN,
};
// Lambda on AWS: invocations follow the deployed batch sizes (executor 10, completion 100 stream records), not the local pollers'.
counts.lambdaInvocations = counts.executorInvocations + counts.completionInvocations + profile.invocations.scanner;

const dynamodbLatencyMs = numberOption('dynamodbLatencyMs', 8);
const targetLatencyMs = numberOption('targetLatencyMs', 100);
// Messages become visible up to 1 s before their due second (DelaySeconds rounds down); the executor waits.
const earlyWaitSeconds = numberOption('earlyWaitSeconds', 0.5);
const executorInvocationSeconds = earlyWaitSeconds + (3 * dynamodbLatencyMs + targetLatencyMs) / 1000;
counts.lambdaGbSeconds =
  (counts.executorInvocations * executorInvocationSeconds + counts.completionInvocations * 0.05) * (256 / 1024);

const baseKnobs: Knobs = {
  executionsPerSecond: 10_000,
  dueShardCount: numberOption('dueShardCount', 16),
  executorBatchSize: numberOption('executorBatchSize', EXECUTOR_BATCH_SIZE),
  executorMaxConcurrency: numberOption('executorMaxConcurrency', 10),
  executorInvocationSeconds,
  completionInvocationSeconds: numberOption('completionInvocationSeconds', 0.05),
  streamParallelizationFactor: numberOption('streamParallelizationFactor', 1),
  scannerIntervalSeconds: numberOption('scannerIntervalSeconds', 60),
  scannerTimeoutSeconds: numberOption('scannerTimeoutSeconds', 50),
  scannerInFlightRequests: numberOption('scannerInFlightRequests', 50),
  dynamodbLatencyMs,
  largestTenantShare: numberOption('largestTenantShare', 0.1),
  scannerPathShare: numberOption('scannerPathShare', 1),
};

const fmt = (v: number, d = 1) => (Number.isFinite(v) ? v.toLocaleString('en-US', { maximumFractionDigits: d }) : '–');

function print(title: string, plan: CapacityPlan): void {
  console.log(`\n${title}`);
  const header = ['resource', 'need', 'limit', 'use', 'knob', 'fits with 50 % headroom at'];
  const lines = plan.rows.map((r) => [
    r.resource,
    `${fmt(r.need)} ${r.unit}`,
    fmt(r.limit, 0),
    `${r.utilization > 1 ? '✗ ' : ''}${fmt(r.utilization * 100, 0)} %`,
    r.knob,
    r.suggestion ?? '',
  ]);
  const widths = header.map((_, c) => Math.max(...[header, ...lines].map((l) => (l[c] ?? '').length)));
  for (const l of [header, ...lines]) console.log(l.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join(' │ '));
  console.log(
    `first bottleneck: ${plan.firstBottleneck.resource} (${fmt(plan.firstBottleneck.utilization * 100, 0)} % of its limit); ` +
      `these knobs sustain ≈ ${fmt(plan.sustainableExecutionsPerSecond, 0)} executions/s`,
  );
  console.log(
    `cost per day at ${fmt(plan.costPerDay.executionsPerDay / 1e9, 2)} B executions: scheduler core $${fmt(plan.costPerDay.core, 0)}, ` +
      `with API Gateway creates and logs $${fmt(plan.costPerDay.all, 0)}`,
  );
}

console.log(`capacity plan from ${resultsPath} (${workload}: one execution = one target call)`);
console.log(
  `per execution: ${fmt(counts.writeUnits, 2)} WU (jobs ${fmt(counts.jobsTableWriteUnits, 2)}, due-index ${fmt(counts.dueIndexWriteUnits, 2)}, ` +
    `runs ${fmt(counts.runsTableWriteUnits, 2)}, sweep-index ${fmt(counts.sweepIndexWriteUnits, 2)}), ${fmt(counts.readUnits, 2)} RU, ` +
    `${fmt(counts.sqsRequests, 2)} SQS requests, ${fmt(counts.lambdaInvocations, 3)} Lambda invocations (deployed batch sizes), ` +
    `executor invocation ≈ ${fmt(executorInvocationSeconds, 3)} s on AWS`,
);
console.log(`AWS limits assumed: ${JSON.stringify(AWS_LIMITS)}`);
print('── 10,000 executions/s, deployed knobs', capacityPlan(counts, baseKnobs));
const perDay = 2e9 / 86_400;
print(
  `── 2 billion/day = ${fmt(perDay, 0)} executions/s on average, deployed knobs`,
  capacityPlan(counts, { ...baseKnobs, executionsPerSecond: perDay }),
);
const scaled: Knobs = {
  ...baseKnobs,
  executionsPerSecond: perDay,
  dueShardCount: numberOption('scaledDueShardCount', 128),
  executorMaxConcurrency: 1_000,
  streamParallelizationFactor: 10,
  scannerInFlightRequests: numberOption('scaledScannerInFlightRequests', 500),
};
print(
  '── 2 billion/day with the knobs turned (128 shards, executor max 1,000, PF 10, 500 scanner requests in flight)',
  capacityPlan(counts, scaled),
);
