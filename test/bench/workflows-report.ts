/**
 * The workflows workload's figures (issue #21, measured as issue #15 measures everything), as pure
 * arithmetic on what was recorded: the AWS request counter, the SQS server's counts and the
 * handlers' invocations sampled at the edges of each shape's phase (nothing else ran in between),
 * the workflow run items read back after the work, and the target's arrival stamps. The workload
 * itself is workflows-workload.ts; the strict verdict on it is workflowsFailures (report.ts'
 * benchFailures), beside the per-call verdict every workload gets (delivery.ts).
 */
import type { CounterSnapshot } from './aws-request-counter.ts';
import { writeUnitsFor } from './item-size.ts';
import { type Summary, summarize } from './stats.ts';

/** The tables whose units are reported apart, by their role (LocalTables' keys). */
export const TABLE_ROLES = ['runs', 'workflowRuns', 'jobs', 'metrics', 'tenants'] as const;
export type TableRole = (typeof TABLE_ROLES)[number];

/** SQS actions billed per request, as report.ts' profileOf counts them (ReceiveMessage: one per executor invocation). */
export const BILLED_SQS_ACTIONS = [
  'SendMessage',
  'SendMessageBatch',
  'DeleteMessage',
  'DeleteMessageBatch',
  'ChangeMessageVisibility',
  'ChangeMessageVisibilityBatch',
] as const;

/** The counters at one instant. */
export interface PhaseSample {
  at: number;
  aws: CounterSnapshot;
  /** Requests fauxqs served, by action. */
  sqsServer: Record<string, number>;
  /** Handler invocations by function name (`executor`, `completion`, `api:<handler>`...). */
  invocations: Record<string, number>;
}

/** Units of one table, write and read. */
export interface TableUnits {
  write: number;
  read: number;
}

/** One shape's cost, from the counters' difference across its phase. */
export interface ShapeCost {
  workflowRuns: number;
  /** Task runs that ended (called or not: a SKIPPED task has no run). */
  taskRuns: number;
  /** Writes of workflow run items (the sum of their final revisions: each write bumps it). */
  workflowRunChanges: number;
  /** All write units (reported + failed conditional writes computed from item sizes) and read units, per task run. */
  perTaskRun: TableUnits & { byTable: Record<TableRole | 'other', TableUnits> };
  perWorkflowRun: TableUnits & { byTable: Record<TableRole | 'other', TableUnits> };
  /** Failed conditional writes in the phase (lost revision races, repeated puts), and their computed units. */
  failedConditionalWrites: number;
  computedWriteUnits: number;
  /** The workflow-runs table's reported write units per change of a run item. */
  workflowRunsWuPerChange: number;
  sqsRequestsPerTaskRun: number;
  /** Invocations per task run, by function; `api` sums the API's routes (the triggers). */
  invocationsPerTaskRun: Record<string, number>;
  /** DynamoDB and SQS requests by operation, per task run. */
  requestsPerTaskRun: Record<string, number>;
}

const per = (value: number, n: number) => (n > 0 ? value / n : Number.NaN);
const diff = (after: number | undefined, before: number | undefined) => (after ?? 0) - (before ?? 0);

/** The role of a counter target (`table` or `table/index`), given the tables' names by role. */
export function roleOf(target: string, tables: Readonly<Record<TableRole, string>>): TableRole | 'other' {
  const table = target.split('/')[0];
  return TABLE_ROLES.find((role) => tables[role] === table) ?? 'other';
}

/** Write and read units by table role across `before` → `after` (an index's units count for its table). */
export function unitsByTable(
  before: CounterSnapshot,
  after: CounterSnapshot,
  tables: Readonly<Record<TableRole, string>>,
): Record<TableRole | 'other', TableUnits> {
  const out = Object.fromEntries([...TABLE_ROLES, 'other'].map((role) => [role, { write: 0, read: 0 }])) as Record<
    TableRole | 'other',
    TableUnits
  >;
  for (const [target, units] of Object.entries(after.dynamodb.byTarget)) {
    const was = before.dynamodb.byTarget[target] ?? { write: 0, read: 0 };
    const slot = out[roleOf(target, tables)];
    slot.write += units.write - was.write;
    slot.read += units.read - was.read;
  }
  return out;
}

const scaled = (byTable: Record<string, TableUnits>, n: number) =>
  Object.fromEntries(
    Object.entries(byTable).map(([role, u]) => [role, { write: per(u.write, n), read: per(u.read, n) }]),
  ) as Record<TableRole | 'other', TableUnits>;

/** A shape's cost per task run and per workflow run, from the samples at its phase's edges. */
export function shapeCost(
  before: PhaseSample,
  after: PhaseSample,
  tables: Readonly<Record<TableRole, string>>,
  counts: { workflowRuns: number; taskRuns: number; workflowRunChanges: number },
): ShapeCost {
  const byTable = unitsByTable(before.aws, after.aws, tables);
  const computed = after.aws.dynamodb.computedWriteUnits - before.aws.dynamodb.computedWriteUnits;
  const write = after.aws.dynamodb.writeUnits - before.aws.dynamodb.writeUnits + computed;
  const read = after.aws.dynamodb.readUnits - before.aws.dynamodb.readUnits;
  const executorInvocations = diff(after.invocations.executor, before.invocations.executor);
  // As profileOf: the local poller's idle long polls are not what Lambda's event source bills
  // per message, so receives count one per executor invocation.
  const sqs =
    BILLED_SQS_ACTIONS.reduce((sum, action) => sum + diff(after.sqsServer[action], before.sqsServer[action]), 0) +
    executorInvocations;
  const invocations: Record<string, number> = {};
  for (const name of new Set([...Object.keys(after.invocations), ...Object.keys(before.invocations)])) {
    const delta = diff(after.invocations[name], before.invocations[name]);
    if (delta === 0) continue;
    const key = name.startsWith('api:') ? 'api' : name;
    invocations[key] = (invocations[key] ?? 0) + delta;
  }
  const requests: Record<string, number> = {};
  for (const [operation, count] of Object.entries(after.aws.requests)) {
    const delta = count - (before.aws.requests[operation] ?? 0);
    if (delta > 0) requests[operation] = per(delta, counts.taskRuns);
  }
  return {
    ...counts,
    perTaskRun: {
      write: per(write, counts.taskRuns),
      read: per(read, counts.taskRuns),
      byTable: scaled(byTable, counts.taskRuns),
    },
    perWorkflowRun: {
      write: per(write, counts.workflowRuns),
      read: per(read, counts.workflowRuns),
      byTable: scaled(byTable, counts.workflowRuns),
    },
    failedConditionalWrites: after.aws.dynamodb.failedConditionalWrites - before.aws.dynamodb.failedConditionalWrites,
    computedWriteUnits: computed,
    workflowRunsWuPerChange: per(byTable.workflowRuns.write, counts.workflowRunChanges),
    sqsRequestsPerTaskRun: per(sqs, counts.taskRuns),
    invocationsPerTaskRun: Object.fromEntries(
      Object.entries(invocations).map(([name, n]) => [name, per(n, counts.taskRuns)]),
    ),
    requestsPerTaskRun: requests,
  };
}

/**
 * What docs/workflows.md estimated for the run item: every change writes it whole, so a run whose
 * item grows linearly to `finalBytes` over `changes` writes costs about the sum of the write units
 * of the sizes in between (the first write holding the graph and no task state yet: `startBytes`).
 */
export function estimatedRunItemUnits(startBytes: number, finalBytes: number, changes: number): number {
  if (changes <= 0) return 0;
  if (changes === 1) return writeUnitsFor(finalBytes);
  let units = 0;
  for (let k = 0; k < changes; k++)
    units += writeUnitsFor(startBytes + ((finalBytes - startBytes) * k) / (changes - 1));
  return units;
}

/** One task of a workflow run as the bench reads it back (from the run item). */
export interface TaskRecord {
  key: string;
  dependsOn: string[];
  /** The task's item: its calls carry `Idempotency-Key: <taskJobId>:<scheduledFor>`. */
  taskJobId: string;
  status: string;
  startedAt?: number;
  completedAt?: number;
}

/** A workflow run as the bench reads it back. */
export interface WorkflowRunRecord {
  workflowRunId: string;
  scheduledFor: number;
  status: string;
  revision: number;
  startedAt: number;
  completedAt?: number;
  /** The item's size in bytes (item-size.ts) at its end. */
  itemBytes: number;
  /** Its size without the task states: what its first write held, about (the graph, the run's own fields). */
  graphBytes?: number;
  tasks: TaskRecord[];
}

/**
 * Hop latency: for each task with dependencies that was called, its call's arrival at the target
 * minus the end of its last parent (the parents' completedAt, written by the executor with the
 * outcome). What it holds: the runs stream, the completion handler's change of the run item, the
 * child's put and send, the executor's receive and claim. A called task without an arrival stamp
 * is not a hop (its call is lost: the delivery verdict counts it).
 */
export function hopLatencies(runs: readonly WorkflowRunRecord[], arrivals: ReadonlyMap<string, number>): number[] {
  const hops: number[] = [];
  for (const run of runs) {
    const byKey = new Map(run.tasks.map((task) => [task.key, task]));
    for (const task of run.tasks) {
      if (task.dependsOn.length === 0) continue;
      const arrival = arrivals.get(`${task.taskJobId}:${run.scheduledFor}`);
      if (arrival === undefined) continue;
      const ends = task.dependsOn.map((key) => byKey.get(key)?.completedAt);
      if (ends.some((end) => end === undefined)) continue;
      hops.push(arrival - Math.max(...(ends as number[])));
    }
  }
  return hops;
}

/** The first arrival of each Idempotency-Key the target recorded. */
export function firstArrivals(calls: ReadonlyArray<readonly [number, string, ...unknown[]]>): Map<string, number> {
  const first = new Map<string, number>();
  for (const [at, key] of calls) {
    const seen = first.get(key);
    if (seen === undefined || at < seen) first.set(key, at);
  }
  return first;
}

/** What each task of a shape must end as when every call answers 200. */
export type PlannedEnds = Readonly<Record<string, 'SUCCEEDED' | 'SKIPPED'>>;

/** One shape's outcome against its plan. */
export interface ShapeEnds {
  workflowRuns: number;
  succeeded: number;
  /** Runs not ended, or ended otherwise than SUCCEEDED: `<workflowRunId> <status>`. */
  wrongRuns: string[];
  /** Tasks that ended otherwise than planned: `<workflowRunId>/<key> <status>`. */
  wrongTasks: string[];
  /** Triggers planned but not answered 202. */
  missingRuns: number;
}

/** Compares the runs read back with the plan: every run SUCCEEDED, every task as planned. */
export function shapeEnds(runs: readonly WorkflowRunRecord[], planned: PlannedEnds, triggered: number): ShapeEnds {
  const ends: ShapeEnds = { workflowRuns: runs.length, succeeded: 0, wrongRuns: [], wrongTasks: [], missingRuns: 0 };
  ends.missingRuns = Math.max(0, triggered - runs.length);
  for (const run of runs) {
    if (run.status === 'SUCCEEDED') ends.succeeded++;
    else ends.wrongRuns.push(`${run.workflowRunId} ${run.status}`);
    const keys = new Set(run.tasks.map((task) => task.key));
    for (const [key, status] of Object.entries(planned)) {
      const task = run.tasks.find((t) => t.key === key);
      if (!task) ends.wrongTasks.push(`${run.workflowRunId}/${key} missing`);
      else if (task.status !== status) ends.wrongTasks.push(`${run.workflowRunId}/${key} ${task.status}`);
    }
    for (const key of keys) if (!(key in planned)) ends.wrongTasks.push(`${run.workflowRunId}/${key} unplanned`);
  }
  return ends;
}

/** One shape's figures. */
export interface ShapeReport {
  shape: string;
  tasksPerRun: number;
  /** Tasks called per run when all succeed. */
  callsPerRun: number;
  triggersPerSecond: number;
  ends: ShapeEnds;
  cost: ShapeCost;
  /** The run item's size at its end, bytes (p50/max), and its writes per run (mean). */
  runItemBytes: Summary;
  changesPerRun: number;
  /**
   * The run item's write units per run if it grew linearly from its graph alone to its end size,
   * rewritten whole at each change: a lower bound (the first write already holds the started tasks'
   * states), beside the measured workflow-runs units and their conflicts.
   */
  estimatedRunItemWuPerRun: number;
  /** Child call arrival − last parent's end, ms. Load-affected on a shared machine. */
  hopLatencyMs: Summary;
  /** The workflow run's completedAt − startedAt, ms. Load-affected. */
  endToEndMs: Summary;
}

/** The workflows block of a result. */
export interface WorkflowsReport {
  shapes: ShapeReport[];
  /** Triggers not answered 202 (status and body of the first). */
  triggerFailures: number;
  firstTriggerFailure?: string;
  /** The load average when the work ended: the latency figures are only as quiet as the machine. */
  loadAverage: number[];
}

/** Assembles one shape's report. */
export function shapeReport(
  shape: { name: string; tasksPerRun: number; planned: PlannedEnds; triggered: number; triggersPerSecond: number },
  runs: readonly WorkflowRunRecord[],
  cost: ShapeCost,
  arrivals: ReadonlyMap<string, number>,
  startBytes: number,
): ShapeReport {
  const changes = runs.reduce((sum, run) => sum + run.revision, 0);
  const sizes = runs.map((run) => run.itemBytes);
  const estimated = runs.reduce((sum, run) => sum + estimatedRunItemUnits(startBytes, run.itemBytes, run.revision), 0);
  return {
    shape: shape.name,
    tasksPerRun: shape.tasksPerRun,
    callsPerRun: Object.values(shape.planned).filter((status) => status === 'SUCCEEDED').length,
    triggersPerSecond: shape.triggersPerSecond,
    ends: shapeEnds(runs, shape.planned, shape.triggered),
    cost,
    runItemBytes: summarize(sizes),
    changesPerRun: per(changes, runs.length),
    estimatedRunItemWuPerRun: per(estimated, runs.length),
    hopLatencyMs: summarize(hopLatencies(runs, arrivals)),
    endToEndMs: summarize(
      runs.flatMap((run) => (run.completedAt === undefined ? [] : [run.completedAt - run.startedAt])),
    ),
  };
}

/**
 * The strict verdict beyond the calls: every trigger answered 202, every workflow run SUCCEEDED,
 * every task ended as planned (called tasks SUCCEEDED, the alarm task SKIPPED). A lost or
 * duplicated task call fails through the delivery verdict (report.ts benchFailures).
 */
export function workflowsFailures(report: WorkflowsReport): string[] {
  const failures: string[] = [];
  if (report.triggerFailures > 0)
    failures.push(`${report.triggerFailures} triggers not answered 202 (first: ${report.firstTriggerFailure})`);
  for (const { shape, ends } of report.shapes) {
    if (ends.missingRuns > 0) failures.push(`${shape}: ${ends.missingRuns} triggered workflow runs not found`);
    if (ends.wrongRuns.length > 0)
      failures.push(`${shape}: ${ends.wrongRuns.length} workflow runs not SUCCEEDED (first: ${ends.wrongRuns[0]})`);
    if (ends.wrongTasks.length > 0)
      failures.push(
        `${shape}: ${ends.wrongTasks.length} tasks ended otherwise than planned (first: ${ends.wrongTasks[0]})`,
      );
  }
  return failures;
}

const f = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : '—');
const ms = (s: Summary) => `${f(s.p50, 0)} / ${f(s.p95, 0)} / ${f(s.max, 0)} ms`;
const tableSplit = (byTable: Record<string, TableUnits>, kind: keyof TableUnits) =>
  Object.entries(byTable)
    .filter(([, u]) => u[kind] > 0)
    .map(([role, u]) => `${role} ${f(u[kind])}`)
    .join(', ');

/** The workflows block of the bench's printout. */
export function renderWorkflowsReport(report: WorkflowsReport): string {
  const lines = [`Workflows (load average at the end ${report.loadAverage.map((l) => l.toFixed(1)).join(' ')})`];
  for (const s of report.shapes) {
    const c = s.cost;
    lines.push(
      `  ${s.shape}: ${s.ends.workflowRuns} runs × ${s.tasksPerRun} tasks (${s.callsPerRun} called), ${s.ends.succeeded} SUCCEEDED`,
      `    WU per task run ${f(c.perTaskRun.write)} (${tableSplit(c.perTaskRun.byTable, 'write')})`,
      `    RU per task run ${f(c.perTaskRun.read)} (${tableSplit(c.perTaskRun.byTable, 'read')})`,
      `    WU / RU per workflow run ${f(c.perWorkflowRun.write, 1)} / ${f(c.perWorkflowRun.read, 1)}; failed conditional writes ${c.failedConditionalWrites}`,
      `    run item: ${f(s.changesPerRun, 1)} changes per run, ${f(c.workflowRunsWuPerChange)} WU per change, end size p50 ${f(s.runItemBytes.p50, 0)} B max ${f(s.runItemBytes.max, 0)} B; estimated ${f(s.estimatedRunItemWuPerRun, 1)} WU per run`,
      `    SQS requests per task run ${f(c.sqsRequestsPerTaskRun)}; invocations per task run ${Object.entries(
        c.invocationsPerTaskRun,
      )
        .map(([name, n]) => `${name} ${f(n, 3)}`)
        .join(', ')}`,
      `    hop latency p50 / p95 / max ${ms(s.hopLatencyMs)}; end to end ${ms(s.endToEndMs)} (load-affected)`,
    );
  }
  return lines.join('\n');
}
