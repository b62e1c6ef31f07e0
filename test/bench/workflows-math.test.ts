/**
 * The pure parts of the workflows workload's figures (workflows-report.ts): the cost of a shape
 * from the counters at its phase's edges, split by table; the run item's estimated units; the hop
 * latency from run stamps and arrival stamps; the ends against the plan and the strict verdict.
 */
import { describe, expect, it } from 'vitest';
import type { CounterSnapshot } from './aws-request-counter.ts';
import { benchFailures } from './report.ts';
import {
  estimatedRunItemUnits,
  firstArrivals,
  hopLatencies,
  type PhaseSample,
  roleOf,
  type ShapeReport,
  shapeCost,
  shapeEnds,
  shapeReport,
  type TableRole,
  unitsByTable,
  type WorkflowRunRecord,
  type WorkflowsReport,
  workflowsFailures,
} from './workflows-report.ts';

const TABLES: Record<TableRole, string> = {
  runs: 'chronos-runs',
  workflowRuns: 'chronos-workflow-runs',
  jobs: 'chronos-jobs',
  metrics: 'chronos-metrics',
  tenants: 'chronos-tenants',
};

function snapshot(
  byTarget: Record<string, { write: number; read: number }>,
  extra: Partial<CounterSnapshot['dynamodb']> = {},
  requests: Record<string, number> = {},
): CounterSnapshot {
  const writeUnits = Object.values(byTarget).reduce((sum, u) => sum + u.write, 0);
  const readUnits = Object.values(byTarget).reduce((sum, u) => sum + u.read, 0);
  return {
    requests,
    dynamodb: { writeUnits, readUnits, computedWriteUnits: 0, failedConditionalWrites: 0, byTarget, ...extra },
  };
}

const sample = (aws: CounterSnapshot, sqsServer: Record<string, number>, invocations: Record<string, number>) =>
  ({ at: 0, aws, sqsServer, invocations }) satisfies PhaseSample;

describe('cost of a shape, by table', () => {
  it('attributes an index to its table and an unknown table to other', () => {
    expect(roleOf('chronos-runs/sweep-index', TABLES)).toBe('runs');
    expect(roleOf('chronos-workflow-runs', TABLES)).toBe('workflowRuns');
    expect(roleOf('someone-else', TABLES)).toBe('other');
  });

  it('counts only what changed across the phase', () => {
    const before = snapshot({ 'chronos-runs': { write: 100, read: 10 }, 'chronos-jobs': { write: 7, read: 3 } });
    const after = snapshot({
      'chronos-runs': { write: 140, read: 12 },
      'chronos-runs/sweep-index': { write: 8, read: 0 },
      'chronos-jobs': { write: 7, read: 5 },
      'chronos-workflow-runs': { write: 30, read: 15 },
    });
    const units = unitsByTable(before, after, TABLES);
    expect(units.runs).toEqual({ write: 48, read: 2 });
    expect(units.jobs).toEqual({ write: 0, read: 2 });
    expect(units.workflowRuns).toEqual({ write: 30, read: 15 });
    expect(units.metrics).toEqual({ write: 0, read: 0 });
  });

  it('divides by task runs and by workflow runs, with failed conditional writes and SQS as the bench bills them', () => {
    const before = sample(snapshot({ 'chronos-runs': { write: 10, read: 0 } }, {}, { 'DynamoDB.PutItem': 5 }), {}, {});
    const after = sample(
      snapshot(
        { 'chronos-runs': { write: 10 + 50, read: 5 }, 'chronos-workflow-runs': { write: 22, read: 11 } },
        { computedWriteUnits: 4, failedConditionalWrites: 2 },
        { 'DynamoDB.PutItem': 25, 'SQS.SendMessageBatch': 4 },
      ),
      { SendMessageBatch: 4, ReceiveMessage: 90, DeleteMessageBatch: 6 },
      { executor: 6, completion: 8, 'api:trigger-workflow': 2 },
    );
    // 2 workflow runs of 5 tasks, 4 of them called in each: 8 task runs; 11 writes of the run items.
    const cost = shapeCost(before, after, TABLES, { workflowRuns: 2, taskRuns: 8, workflowRunChanges: 11 });
    expect(cost.perTaskRun.write).toBeCloseTo((50 + 22 + 4) / 8);
    expect(cost.perTaskRun.read).toBeCloseTo(16 / 8);
    expect(cost.perWorkflowRun.write).toBeCloseTo(76 / 2);
    expect(cost.perTaskRun.byTable.runs).toEqual({ write: 50 / 8, read: 5 / 8 });
    expect(cost.perWorkflowRun.byTable.workflowRuns).toEqual({ write: 11, read: 5.5 });
    expect(cost.workflowRunsWuPerChange).toBe(2);
    expect(cost.failedConditionalWrites).toBe(2);
    // The poller's 90 receives are idle long polls: one receive per executor invocation instead.
    expect(cost.sqsRequestsPerTaskRun).toBeCloseTo((4 + 6 + 6) / 8);
    expect(cost.invocationsPerTaskRun).toEqual({ executor: 6 / 8, completion: 1, api: 2 / 8 });
    expect(cost.requestsPerTaskRun).toEqual({ 'DynamoDB.PutItem': 20 / 8, 'SQS.SendMessageBatch': 4 / 8 });
  });
});

describe('the run item estimate (whole rewrites of a growing item)', () => {
  it('is one unit per change for an item that stays under 1 KB', () => {
    expect(estimatedRunItemUnits(600, 1000, 6)).toBe(6);
  });

  it('grows with the square of the width: twice the tasks, about four times the units', () => {
    const narrow = estimatedRunItemUnits(2_000, 20_000, 51);
    const wide = estimatedRunItemUnits(4_000, 40_000, 101);
    expect(narrow).toBeGreaterThan(51 * 10);
    expect(wide / narrow).toBeGreaterThan(3.5);
    expect(wide / narrow).toBeLessThan(4.5);
  });

  it('is nothing without a write, and the final size for one', () => {
    expect(estimatedRunItemUnits(100, 5_000, 0)).toBe(0);
    expect(estimatedRunItemUnits(100, 5_000, 1)).toBe(5);
  });
});

const task = (key: string, dependsOn: string[], status: string, completedAt?: number) => ({
  key,
  dependsOn,
  taskJobId: `wf1v1t${key}`,
  status,
  ...(completedAt === undefined ? {} : { completedAt }),
});

function diamondRun(overrides: Partial<WorkflowRunRecord> = {}): WorkflowRunRecord {
  return {
    workflowRunId: 'wf1_1000',
    scheduledFor: 1000,
    status: 'SUCCEEDED',
    revision: 6,
    startedAt: 1000,
    completedAt: 1900,
    itemBytes: 900,
    tasks: [
      task('extract', [], 'SUCCEEDED', 1100),
      task('clean', ['extract'], 'SUCCEEDED', 1300),
      task('enrich', ['extract'], 'SUCCEEDED', 1500),
      task('load', ['clean', 'enrich'], 'SUCCEEDED', 1800),
      task('page-oncall', ['load'], 'SKIPPED'),
    ],
    ...overrides,
  };
}

describe('hop latency', () => {
  it("is each called child's arrival minus its last parent's end", () => {
    const arrivals = new Map([
      ['wf1v1textract:1000', 1050],
      ['wf1v1tclean:1000', 1180],
      ['wf1v1tenrich:1000', 1160],
      ['wf1v1tload:1000', 1640],
    ]);
    // clean 1180 − 1100, enrich 1160 − 1100, load 1640 − max(1300, 1500); page-oncall never called.
    expect(hopLatencies([diamondRun()], arrivals).sort((a, b) => a - b)).toEqual([60, 80, 140]);
  });

  it('leaves out a child without an arrival (a lost call is the delivery verdict’s) and keys by occurrence', () => {
    const arrivals = new Map([
      ['wf1v1tclean:1000', 1180],
      ['wf1v1tenrich:999', 1160],
    ]);
    expect(hopLatencies([diamondRun()], arrivals)).toEqual([80]);
  });

  it('takes the first arrival of a key', () => {
    const first = firstArrivals([
      [300, 'a:1', '/a'],
      [200, 'a:1', '/a'],
      [250, 'b:1', '/b'],
    ]);
    expect(first).toEqual(
      new Map([
        ['a:1', 200],
        ['b:1', 250],
      ]),
    );
  });
});

const PLANNED = {
  extract: 'SUCCEEDED',
  clean: 'SUCCEEDED',
  enrich: 'SUCCEEDED',
  load: 'SUCCEEDED',
  'page-oncall': 'SKIPPED',
} as const;

describe('ends against the plan, and the verdict', () => {
  it('passes a diamond whose alarm task was skipped', () => {
    const ends = shapeEnds([diamondRun()], PLANNED, 1);
    expect(ends).toEqual({ workflowRuns: 1, succeeded: 1, wrongRuns: [], wrongTasks: [], missingRuns: 0 });
  });

  it('names a run not SUCCEEDED, a task ended otherwise, a missing run', () => {
    const failed = diamondRun({
      workflowRunId: 'wf1_2000',
      status: 'FAILED',
      tasks: [...diamondRun().tasks.slice(0, 4), task('page-oncall', ['load'], 'SUCCEEDED', 2000)],
    });
    const ends = shapeEnds([diamondRun(), failed], PLANNED, 3);
    expect(ends.succeeded).toBe(1);
    expect(ends.wrongRuns).toEqual(['wf1_2000 FAILED']);
    expect(ends.wrongTasks).toEqual(['wf1_2000/page-oncall SUCCEEDED']);
    expect(ends.missingRuns).toBe(1);
  });

  function report(runs: WorkflowRunRecord[], triggered: number, triggerFailures = 0): WorkflowsReport {
    const cost = shapeCost(sample(snapshot({}), {}, {}), sample(snapshot({}), {}, {}), TABLES, {
      workflowRuns: runs.length,
      taskRuns: 4,
      workflowRunChanges: 6,
    });
    const shape: ShapeReport = shapeReport(
      { name: 'diamond', tasksPerRun: 5, planned: PLANNED, triggered, triggersPerSecond: 4 },
      runs,
      cost,
      new Map(),
      400,
    );
    return { shapes: [shape], triggerFailures, loadAverage: [0] };
  }

  it('fails on a wrong end, a missing run or a refused trigger, and not on a clean run', () => {
    expect(workflowsFailures(report([diamondRun()], 1))).toEqual([]);
    expect(workflowsFailures(report([diamondRun({ status: 'RUNNING' })], 1))).toHaveLength(1);
    expect(workflowsFailures(report([diamondRun()], 2))).toEqual(['diamond: 1 triggered workflow runs not found']);
    expect(workflowsFailures(report([diamondRun()], 1, 1))[0]).toMatch(/1 triggers not answered 202/);
  });

  it('makes the bench fail through benchFailures, as a lost or duplicated task call does', () => {
    const delivery = {
      expected: 4,
      calls: 4,
      delivered: 4,
      lost: 0,
      pending: 0,
      duplicates: 0,
      unexpected: 0,
      unexpectedBy: { malformedKey: 0, unknownJob: 0, offSchedule: 0, extraOccurrence: 0, wrongTarget: 0 },
      fireLagMs: { count: 0, p50: 0, p95: 0, p99: 0, max: 0, mean: 0 },
      executionsPerSecond: 0,
    };
    const base = {
      mode: 'workflows' as const,
      created: { count: 5, failures: 0, durationMs: 1, latencyMs: delivery.fireLagMs },
      delivery,
      settle: { settled: true, waitedMs: 0, limitMs: 1, state: '' },
    };
    expect(benchFailures([{ ...base, workflows: report([diamondRun()], 1) }], [])).toEqual([]);
    expect(benchFailures([base], [])).toEqual([
      'workflows: no workflows figures (the workload measured nothing of its runs)',
    ]);
    expect(benchFailures([{ ...base, workflows: report([diamondRun({ status: 'FAILED' })], 1) }], [])).toHaveLength(1);
    expect(
      benchFailures([{ ...base, delivery: { ...delivery, duplicates: 1 }, workflows: report([diamondRun()], 1) }], []),
    ).toEqual(['workflows: 1 duplicate calls']);
  });

  it('reports the hop latency and the end-to-end time of a shape from its runs', () => {
    const arrivals = new Map([
      ['wf1v1tclean:1000', 1180],
      ['wf1v1tenrich:1000', 1160],
      ['wf1v1tload:1000', 1640],
    ]);
    const shape = shapeReport(
      { name: 'diamond', tasksPerRun: 5, planned: PLANNED, triggered: 1, triggersPerSecond: 4 },
      [diamondRun()],
      shapeCost(sample(snapshot({}), {}, {}), sample(snapshot({}), {}, {}), TABLES, {
        workflowRuns: 1,
        taskRuns: 4,
        workflowRunChanges: 6,
      }),
      arrivals,
      400,
    );
    expect(shape.callsPerRun).toBe(4);
    expect(shape.hopLatencyMs.max).toBe(140);
    expect(shape.hopLatencyMs.p50).toBe(80);
    expect(shape.endToEndMs.max).toBe(900);
    expect(shape.changesPerRun).toBe(6);
    expect(shape.estimatedRunItemWuPerRun).toBe(6);
  });
});
