/**
 * The capacity plan as arithmetic: from the per-execution counts the bench measured and the
 * deployment's knobs, what a target rate needs from each resource, against the AWS limit that
 * applies, and which resource runs out first. Pure: `npm run capacity` feeds it and prints it.
 */
import { costPerMillion, type PerExecution } from './cost.ts';

/** Per-execution counts (one execution = one call of the target), from a bench result. */
export interface MeasuredCounts extends PerExecution {
  /** DynamoDB write units per execution on each table / index. */
  jobsTableWriteUnits: number;
  dueIndexWriteUnits: number;
  runsTableWriteUnits: number;
  sweepIndexWriteUnits: number;
  executorInvocations: number;
  completionInvocations: number;
  /** DynamoDB requests the scanner makes per run it materializes (run put + job advance + due-index query share). */
  scannerRequestsPerRun: number;
}

/** What an operator can turn (each names where it is set). */
export interface Knobs {
  executionsPerSecond: number;
  /** cdk context chronos:dueShardCount (DUE_SHARD_COUNT); also the sweep-index's shard count. */
  dueShardCount: number;
  /** Executor event source batchSize (lib/constructs/executor.ts). */
  executorBatchSize: number;
  /** cdk context chronos:executorMaxConcurrency (SQS event source maximum concurrency). */
  executorMaxConcurrency: number;
  /** Wall time of one executor invocation on AWS, s: early wait before the due second + DynamoDB + the target's answer. */
  executorInvocationSeconds: number;
  /** Completion handler invocation wall time on AWS, s. */
  completionInvocationSeconds: number;
  /** Stream event source ParallelizationFactor (1–10). */
  streamParallelizationFactor: number;
  /** Scanner schedule (lib/constructs/scanner.ts, rate 1 minute) and its Lambda timeout (lib/timeouts.ts). */
  scannerIntervalSeconds: number;
  scannerTimeoutSeconds: number;
  /** Concurrent DynamoDB requests one scanner invocation keeps in flight (SDK maxSockets, default 50). */
  scannerInFlightRequests: number;
  /** DynamoDB request latency seen from Lambda, ms. */
  dynamodbLatencyMs: number;
  /** Share of executions from the largest tenant (the jobs table's partition key is the tenant). */
  largestTenantShare: number;
  /** Share of executions that go through the scanner (the rest are due within the horizon at create). */
  scannerPathShare: number;
}

/** Documented defaults (us-east-1); most are adjustable quotas. */
export const AWS_LIMITS = {
  /** One partition (and so one partition key, without split-for-heat) sustains this much. */
  partitionWriteUnitsPerSecond: 1_000,
  partitionReadUnitsPerSecond: 3_000,
  /** On-demand table-level throughput quota (default, adjustable). */
  tableWriteUnitsPerSecond: 40_000,
  tableReadUnitsPerSecond: 40_000,
  /** Account concurrent executions (default, adjustable). */
  accountLambdaConcurrency: 1_000,
  /** Highest maximum concurrency an SQS event source accepts; also Chronos' own config validation cap. */
  sqsEventSourceMaxConcurrency: 1_000,
  /** Messages received but not yet deleted, standard queue. */
  sqsInFlightMessages: 120_000,
} as const;

export interface PlanRow {
  resource: string;
  need: number;
  limit: number;
  unit: string;
  /** need / limit: above 1 it does not fit. */
  utilization: number;
  knob: string;
  /** The smallest knob value that fits with 50 % headroom, when the knob is a count. */
  suggestion?: string;
}

export interface CapacityPlan {
  rows: PlanRow[];
  firstBottleneck: PlanRow;
  costPerDay: { core: number; all: number; executionsPerDay: number };
  /** Executions per second the current knobs sustain (the tightest row's rate). */
  sustainableExecutionsPerSecond: number;
}

const HEADROOM = 0.5;

/** The plan for `knobs.executionsPerSecond` with the measured counts. */
export function capacityPlan(counts: MeasuredCounts, knobs: Knobs, limits = AWS_LIMITS): CapacityPlan {
  const rate = knobs.executionsPerSecond;
  const rows: PlanRow[] = [];
  const add = (row: Omit<PlanRow, 'utilization'>) => rows.push({ ...row, utilization: row.need / row.limit });
  const fitCount = (perUnitNeed: number, limit: number) => Math.ceil(perUnitNeed / (limit * HEADROOM));

  const dueIndexWrites = rate * counts.dueIndexWriteUnits;
  add({
    resource: 'due-index WU/s per shard',
    need: dueIndexWrites / knobs.dueShardCount,
    limit: limits.partitionWriteUnitsPerSecond,
    unit: 'WU/s',
    knob: `chronos:dueShardCount (${knobs.dueShardCount})`,
    suggestion: `≥ ${fitCount(dueIndexWrites, limits.partitionWriteUnitsPerSecond)} shards`,
  });
  const sweepWrites = rate * counts.sweepIndexWriteUnits;
  add({
    resource: 'sweep-index WU/s per shard',
    need: sweepWrites / knobs.dueShardCount,
    limit: limits.partitionWriteUnitsPerSecond,
    unit: 'WU/s',
    knob: `chronos:dueShardCount (${knobs.dueShardCount}), shared with the due-index`,
    suggestion: `≥ ${fitCount(sweepWrites, limits.partitionWriteUnitsPerSecond)} shards`,
  });
  const jobsWrites = rate * (counts.jobsTableWriteUnits + counts.dueIndexWriteUnits);
  add({
    resource: 'jobs table WU/s (table + due-index)',
    need: jobsWrites,
    limit: limits.tableWriteUnitsPerSecond,
    unit: 'WU/s',
    knob: 'table throughput quota (Service Quotas) + warm throughput',
    suggestion: `${Math.ceil(jobsWrites / limits.partitionWriteUnitsPerSecond)} partitions`,
  });
  add({
    resource: 'jobs table WU/s on the largest tenant key',
    need: rate * knobs.largestTenantShare * counts.jobsTableWriteUnits,
    limit: limits.partitionWriteUnitsPerSecond,
    unit: 'WU/s',
    knob: 'data model: jobs partition key is tenantId (see CAPACITY.md)',
  });
  const runsWrites = rate * (counts.runsTableWriteUnits + counts.sweepIndexWriteUnits);
  add({
    resource: 'runs table WU/s (table + sweep-index)',
    need: runsWrites,
    limit: limits.tableWriteUnitsPerSecond,
    unit: 'WU/s',
    knob: 'table throughput quota (Service Quotas) + warm throughput',
    suggestion: `${Math.ceil(runsWrites / limits.partitionWriteUnitsPerSecond)} partitions`,
  });
  add({
    resource: 'DynamoDB RU/s (all tables)',
    need: rate * counts.readUnits,
    limit: limits.tableReadUnitsPerSecond,
    unit: 'RU/s',
    knob: 'table throughput quota',
  });
  const executorConcurrency = rate * counts.executorInvocations * knobs.executorInvocationSeconds;
  add({
    resource: 'executor concurrency vs its maximum',
    need: executorConcurrency,
    limit: knobs.executorMaxConcurrency,
    unit: 'instances',
    knob: `chronos:executorMaxConcurrency (${knobs.executorMaxConcurrency}); executor batchSize (${knobs.executorBatchSize})`,
    suggestion: `≥ ${Math.ceil(executorConcurrency / HEADROOM)}`,
  });
  const completionConcurrency = rate * counts.completionInvocations * knobs.completionInvocationSeconds;
  add({
    resource: 'Lambda concurrency, account (executor + completion)',
    need: executorConcurrency + completionConcurrency,
    limit: limits.accountLambdaConcurrency,
    unit: 'instances',
    knob: 'account concurrency quota (Service Quotas)',
    suggestion: `≥ ${Math.ceil((executorConcurrency + completionConcurrency) / HEADROOM)}`,
  });
  const streamShards = Math.max(1, Math.ceil(runsWrites / limits.partitionWriteUnitsPerSecond));
  add({
    resource: 'completion concurrency vs stream shards × PF',
    need: completionConcurrency,
    limit: streamShards * knobs.streamParallelizationFactor,
    unit: 'instances',
    knob: `stream ParallelizationFactor (${knobs.streamParallelizationFactor}); completion batchSize`,
  });
  add({
    resource: 'SQS messages in flight',
    need: rate * knobs.executorInvocationSeconds,
    limit: limits.sqsInFlightMessages,
    unit: 'messages',
    knob: 'executor invocation time (early wait before the due second)',
  });
  const runsPerScan = rate * knobs.scannerPathShare * knobs.scannerIntervalSeconds;
  const scanSeconds =
    (runsPerScan * counts.scannerRequestsPerRun * knobs.dynamodbLatencyMs) / 1000 / knobs.scannerInFlightRequests;
  add({
    resource: 'scanner seconds per scan',
    need: scanSeconds,
    limit: Math.min(knobs.scannerIntervalSeconds, knobs.scannerTimeoutSeconds),
    unit: 's',
    knob: `scanner fan-out / SDK maxSockets (${knobs.scannerInFlightRequests}); scan interval ${knobs.scannerIntervalSeconds} s`,
    suggestion: `${Math.ceil(scanSeconds / (knobs.scannerTimeoutSeconds * HEADROOM))} parallel scanner invocations`,
  });

  const firstBottleneck = rows.reduce((worst, row) => (row.utilization > worst.utilization ? row : worst));
  const perDay = rate * 86_400;
  const cost = costPerMillion(counts);
  return {
    rows,
    firstBottleneck,
    costPerDay: { core: (cost.core * perDay) / 1e6, all: (cost.all * perDay) / 1e6, executionsPerDay: perDay },
    sustainableExecutionsPerSecond: rate / firstBottleneck.utilization,
  };
}
