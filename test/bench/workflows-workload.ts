/**
 * The workflows workload (issue #21, measured as issue #15 asks of every feature): two shapes run
 * one after the other, each in its own phase so that the counters' difference across a phase is
 * that shape's cost alone:
 *
 * - **diamond**: the issue's nightly-etl (extract → clean, enrich → load with `input: upstream`
 *   → page-oncall `any_failed`), 100 workflows (× --scale) each triggered once at a steady pace;
 *   every call answers 200, so 4 tasks are called and page-oncall ends SKIPPED;
 * - **fan-100**: a few 100-task workflows (99 parallel tasks → 1 fan-in), each triggered once.
 *
 * Workflows are created over the HTTP API before the phases; triggers go over HTTP too (their
 * API invocation is part of a workflow run's cost). No scanner runs: a trigger queues its first
 * tasks and every later task is started by the completion handler, so the phases count only the
 * workflow path (a scheduled occurrence adds one starter run: docs/workflows.md). Every planned
 * task call is expected exactly once (delivery.ts, the strict verdict); workflows-report.ts makes
 * the figures.
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { type AttributeValue, DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { taskJobIdOf } from '#core/workflows/workflow-ids';
import type { LocalChronos } from '#local/chronos-local';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators/local-clients';
import type { CreatedJobs } from './api-load.ts';
import type { OneCallBetween } from './delivery.ts';
import type { Harness, HarnessConfig } from './harness.ts';
import { itemSize } from './item-size.ts';
import {
  firstArrivals,
  type PhaseSample,
  type PlannedEnds,
  type ShapeReport,
  shapeCost,
  shapeReport,
  type TableRole,
  type WorkflowRunRecord,
  type WorkflowsReport,
} from './workflows-report.ts';
import type { Workload } from './workloads.ts';

export const DIAMONDS = 100;
export const DIAMOND_TRIGGERS_PER_SECOND = 4;
export const FAN_WORKFLOWS = 3;
export const FAN_WIDTH = 99;
export const FAN_TRIGGERS_PER_SECOND = 0.5;
/** Longest wait for one phase's workflow runs to end. */
const PHASE_LIMIT_MS = 120_000;

const CONFIG: HarnessConfig = { scannerIntervalMs: 0, scanHorizonSeconds: 30, sqsConcurrency: 16 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface TaskSpec {
  key: string;
  dependsOn?: string[];
  when?: string;
  input?: string;
}

interface Shape {
  name: string;
  tasks: TaskSpec[];
  planned: PlannedEnds;
  workflows: number;
  triggersPerSecond: number;
}

const DIAMOND_TASKS: TaskSpec[] = [
  { key: 'extract' },
  { key: 'clean', dependsOn: ['extract'] },
  { key: 'enrich', dependsOn: ['extract'] },
  { key: 'load', dependsOn: ['clean', 'enrich'], input: 'upstream' },
  { key: 'page-oncall', dependsOn: ['load'], when: 'any_failed' },
];

const FAN_TASKS: TaskSpec[] = [
  ...Array.from({ length: FAN_WIDTH }, (_, i) => ({ key: `part-${i}` })),
  { key: 'merge', dependsOn: Array.from({ length: FAN_WIDTH }, (_, i) => `part-${i}`) },
];

/** The shapes at a scale: at least 2 diamonds and 2 wide workflows. */
export function shapesAt(scale: number): Shape[] {
  return [
    {
      name: 'diamond',
      tasks: DIAMOND_TASKS,
      planned: {
        extract: 'SUCCEEDED',
        clean: 'SUCCEEDED',
        enrich: 'SUCCEEDED',
        load: 'SUCCEEDED',
        'page-oncall': 'SKIPPED',
      },
      workflows: Math.max(2, Math.round(DIAMONDS * scale)),
      triggersPerSecond: DIAMOND_TRIGGERS_PER_SECOND,
    },
    {
      name: `fan-${FAN_TASKS.length}`,
      tasks: FAN_TASKS,
      planned: Object.fromEntries(FAN_TASKS.map((task) => [task.key, 'SUCCEEDED'])),
      workflows: Math.max(2, Math.round(FAN_WORKFLOWS * scale)),
      triggersPerSecond: FAN_TRIGGERS_PER_SECOND,
    },
  ];
}

/** A POST to the API as the dev tenant, sent again after a 429 (its Retry-After) or a 5xx. */
async function post(
  chronos: LocalChronos,
  path: string,
  body?: unknown,
): Promise<{ status: number; answer: Record<string, unknown> }> {
  let last = { status: 0, answer: {} as Record<string, unknown> };
  const key = randomUUID();
  for (let tries = 0; tries < 3; tries++) {
    const response = await fetch(`${chronos.apiUrl}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${chronos.token}`,
        'idempotency-key': key,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    last = { status: response.status, answer: (await response.json()) as Record<string, unknown> };
    if (response.status === 429)
      await sleep(Math.min(5_000, Number(response.headers.get('retry-after') ?? '1') * 1000));
    else if (response.status < 500) return last;
  }
  return last;
}

/** Every workflow run item, read with the bench's own client (not counted). */
async function readWorkflowRuns(chronos: LocalChronos): Promise<Map<string, WorkflowRunRecord>> {
  const dynamodb = new DynamoDBClient({
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    endpoint: chronos.endpoints.dynamodb,
  });
  const runs = new Map<string, WorkflowRunRecord>();
  try {
    let ExclusiveStartKey: Record<string, AttributeValue> | undefined;
    do {
      const page = await dynamodb.send(
        new ScanCommand({
          TableName: chronos.tables.workflowRuns,
          ...(ExclusiveStartKey ? { ExclusiveStartKey } : {}),
        }),
      );
      for (const raw of page.Items ?? []) {
        const item = unmarshall(raw);
        const tasks = (item.tasks ?? {}) as Record<
          string,
          { status: string; startedAt?: number; completedAt?: number }
        >;
        const graph = item.graph as Array<{ key: string; dependsOn: string[]; taskJobId: string }>;
        runs.set(String(item.workflowRunId), {
          workflowRunId: String(item.workflowRunId),
          scheduledFor: Number(item.scheduledFor),
          status: String(item.status),
          revision: Number(item.revision),
          startedAt: Number(item.startedAt),
          ...(typeof item.completedAt === 'number' ? { completedAt: item.completedAt } : {}),
          itemBytes: itemSize(raw),
          graphBytes: itemSize({ ...raw, tasks: { M: {} } }),
          tasks: graph.map((entry) => ({
            key: entry.key,
            dependsOn: entry.dependsOn,
            taskJobId: entry.taskJobId,
            status: tasks[entry.key]?.status ?? 'PENDING',
            ...(tasks[entry.key]?.startedAt === undefined ? {} : { startedAt: tasks[entry.key]?.startedAt }),
            ...(tasks[entry.key]?.completedAt === undefined ? {} : { completedAt: tasks[entry.key]?.completedAt }),
          })),
        });
      }
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
  } finally {
    dynamodb.destroy();
  }
  return runs;
}

const ENDED = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED']);

/** One phase: the workflows triggered, what came back, and the counters at its edges. */
interface Phase {
  shape: Shape;
  workflowIds: string[];
  runIds: string[];
  before?: PhaseSample;
  after?: PhaseSample;
  ended: boolean;
}

/** The workflows workload; a fresh one per measurement (its phases live in the closure). */
export function workflowsWorkload(): Workload {
  const phases: Phase[] = [];
  let triggerFailures = 0;
  let firstTriggerFailure: string | undefined;
  let harnessRef: Harness | undefined;

  const sample = async (harness: Harness): Promise<PhaseSample> => ({
    at: Date.now(),
    aws: harness.counter.snapshot(),
    sqsServer: await harness.sqs.request<Record<string, number>>('requests'),
    invocations: Object.fromEntries(Object.entries(harness.meter.stats).map(([name, s]) => [name, s.invocations])),
  });

  /** Waits until the handlers' AWS requests stop for `quietMs` (the phase's last writes are in). */
  const quiesce = async (harness: Harness, quietMs = 1_500, maxMs = 20_000) => {
    const deadline = Date.now() + maxMs;
    let last = harness.counter.total();
    let stableSince = Date.now();
    while (Date.now() < deadline) {
      await sleep(250);
      const now = harness.counter.total();
      if (now !== last) {
        last = now;
        stableSince = Date.now();
      } else if (Date.now() - stableSince >= quietMs) return;
    }
  };

  return {
    description: `${DIAMONDS} diamonds (5 tasks) triggered ${DIAMOND_TRIGGERS_PER_SECOND}/s, then ${FAN_WORKFLOWS} workflows of ${FAN_WIDTH} parallel tasks → 1 fan-in`,
    config: CONFIG,
    drainMs: 20_000,
    jobsStayActive: true,
    async drive(harness, scale, progress) {
      harnessRef = harness;
      const target = harness.target.ready.url;
      const shapes = shapesAt(scale);
      const created: CreatedJobs = {
        jobIds: [],
        windows: [],
        targetUrls: [],
        latenciesMs: [],
        failures: 0,
        durationMs: 0,
      };
      const expectation = new Map<string, OneCallBetween>();
      const targetPaths = new Map<string, string>();
      const createdAt = performance.now();
      for (const shape of shapes) {
        const phase: Phase = { shape, workflowIds: [], runIds: [], ended: false };
        phases.push(phase);
        for (let w = 0; w < shape.workflows; w++) {
          const pathOf = (key: string) => `/wf/${shape.name}/${w}/${key}`;
          const sentAt = performance.now();
          const { status, answer } = await post(harness.chronos, '/v1/workflows', {
            name: `${shape.name}-${w}`,
            tasks: shape.tasks.map((task) => ({ ...task, target: { url: `${target}${pathOf(task.key)}` } })),
          });
          created.latenciesMs.push(performance.now() - sentAt);
          if (status !== 201 || typeof answer.workflowId !== 'string') {
            created.failures++;
            created.firstFailure ??= `${status} ${JSON.stringify(answer).slice(0, 300)}`;
            continue;
          }
          phase.workflowIds.push(answer.workflowId);
          shape.tasks.forEach((task, index) => {
            const taskJobId = taskJobIdOf(answer.workflowId as string, 1, index);
            created.jobIds.push(taskJobId);
            created.targetUrls.push(`${target}${pathOf(task.key)}`);
            targetPaths.set(taskJobId, pathOf(task.key));
          });
        }
      }
      created.durationMs = performance.now() - createdAt;
      progress(`created ${phases.map((p) => `${p.workflowIds.length} ${p.shape.name}`).join(', ')} workflows`);

      for (const phase of phases) {
        await quiesce(harness);
        phase.before = await sample(harness);
        const startedAt = Date.now();
        const paceMs = 1000 / phase.shape.triggersPerSecond;
        for (const [w, workflowId] of phase.workflowIds.entries()) {
          await sleep(Math.max(0, startedAt + w * paceMs - Date.now()));
          const from = Date.now();
          const { status, answer } = await post(harness.chronos, `/v1/workflows/${workflowId}/trigger`);
          const to = Date.now();
          if (status !== 202 || typeof answer.workflowRunId !== 'string') {
            triggerFailures++;
            firstTriggerFailure ??= `${status} ${JSON.stringify(answer).slice(0, 300)}`;
            continue;
          }
          phase.runIds.push(answer.workflowRunId);
          // Every task planned to be called, once, for the occurrence the trigger made (within its window).
          phase.shape.tasks.forEach((task, index) => {
            if (phase.shape.planned[task.key] === 'SUCCEEDED')
              expectation.set(taskJobIdOf(workflowId, 1, index), { from, to });
          });
        }
        progress(
          `${phase.shape.name}: triggered ${phase.runIds.length} in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
        );
        const limit = Date.now() + PHASE_LIMIT_MS;
        for (;;) {
          const runs = await readWorkflowRuns(harness.chronos);
          const ended = phase.runIds.filter((id) => ENDED.has(runs.get(id)?.status ?? '')).length;
          if (ended === phase.runIds.length) {
            phase.ended = true;
            break;
          }
          if (Date.now() >= limit) {
            progress(
              `${phase.shape.name}: ${ended}/${phase.runIds.length} runs ended after ${PHASE_LIMIT_MS / 1000} s`,
            );
            break;
          }
          await sleep(500);
        }
        await quiesce(harness);
        phase.after = await sample(harness);
        progress(`${phase.shape.name}: runs ended, phase ${((phase.after.at - phase.before.at) / 1000).toFixed(1)} s`);
      }
      return { expectation, targetPaths, created, lastDue: Date.now() };
    },
    observe() {
      return {
        async untilDone() {},
        async finish() {
          const harness = harnessRef as Harness;
          const runs = await readWorkflowRuns(harness.chronos);
          const arrivals = firstArrivals(await harness.target.request<Array<[number, string, string]>>('calls'));
          const tables = harness.chronos.tables as unknown as Record<TableRole, string>;
          const shapes: ShapeReport[] = phases.map((phase) => {
            const mine = phase.runIds.flatMap((id) => {
              const run = runs.get(id);
              return run ? [run] : [];
            });
            const taskRuns = mine.reduce(
              (sum, run) =>
                sum + run.tasks.filter((task) => task.completedAt !== undefined && task.status !== 'SKIPPED').length,
              0,
            );
            const changes = mine.reduce((sum, run) => sum + run.revision, 0);
            const cost = shapeCost(phase.before as PhaseSample, phase.after as PhaseSample, tables, {
              workflowRuns: mine.length,
              taskRuns,
              workflowRunChanges: changes,
            });
            const graphBytes = Math.min(...mine.map((run) => run.graphBytes ?? run.itemBytes));
            return shapeReport(
              {
                name: phase.shape.name,
                tasksPerRun: phase.shape.tasks.length,
                planned: phase.shape.planned,
                triggered: phase.workflowIds.length,
                triggersPerSecond: phase.shape.triggersPerSecond,
              },
              mine,
              cost,
              arrivals,
              graphBytes,
            );
          });
          const report: WorkflowsReport = {
            shapes,
            triggerFailures,
            ...(firstTriggerFailure ? { firstTriggerFailure } : {}),
            loadAverage: loadavg(),
          };
          return { workflows: report };
        },
      };
    },
  };
}
