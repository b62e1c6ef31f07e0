/**
 * The workflow-run engine against DynamoDB Local: the use cases of core/use-cases/workflows/
 * through the workflow-run store (conditional puts, revisions) and the runs table, with each task
 * run's end applied as the completion handler applies it (recordTaskRunEnd). The cases on
 * the engine alone: a diamond in dependency order with upstream data, a failure that skips its
 * dependents and starts the `any_failed` alarm, a 50-way fan-in started once under concurrent
 * ends, retry of only what failed, cancel.
 */
import { CreateTableCommand, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoJobRepository } from '#adapters/dynamodb/job-repository';
import { DynamoRunRepository } from '#adapters/dynamodb/run-repository';
import { WORKFLOW_RUNS_TABLE } from '#adapters/dynamodb/table-definitions';
import { DynamoWorkflowRunStore } from '#adapters/dynamodb/workflow-run-store';
import type { RunKey } from '#core/model';
import { parseRunId, runIdOf } from '#core/run-id';
import type { TerminalRunStatus } from '#core/run-state';
import { cancelWorkflowRun } from '#core/use-cases/workflows/cancel-workflow-run';
import { getWorkflowRun } from '#core/use-cases/workflows/read-workflow-runs';
import { retryWorkflowRun } from '#core/use-cases/workflows/retry-workflow-run';
import { startTaskRuns } from '#core/use-cases/workflows/start-task-runs';
import { newWorkflowRun, startWorkflowRun } from '#core/use-cases/workflows/start-workflow-run';
import { recordTaskRunEnd } from '#core/use-cases/workflows/task-run-ended';
import type { WorkflowRunDeps } from '#core/use-cases/workflows/workflow-run-deps';
import type { TriggerRule } from '#core/workflows/model';
import type { WorkflowHead, WorkflowRun, WorkflowTaskJob } from '#core/workflows/stored';
import { taskJobIdOf } from '#core/workflows/workflow-ids';
import { workflowRunView } from '#core/workflows/workflow-run-view';
import { type EmulatedAws, startEmulatedAws } from '../support/emulated-aws.ts';
import { RecordingDispatcher, RecordingNotices } from '../support/fakes/fakes.ts';
import { jobFixture } from '../support/job-fixture.ts';

// In the future: DynamoDB Local's TTL deletes runs whose retention ended, as DynamoDB does.
const T0 = Date.parse('2030-06-01T02:00:00Z');
const TENANT = 'tenant-w';
let aws: EmulatedAws;
let runs: DynamoRunRepository;
let jobs: DynamoJobRepository;
let store: DynamoWorkflowRunStore;
let dispatcher: RecordingDispatcher;
let notices: RecordingNotices;

beforeAll(async () => {
  aws = await startEmulatedAws();
  runs = new DynamoRunRepository(aws.documents, aws.resources.tables.runs, 4);
  jobs = new DynamoJobRepository(aws.documents, aws.resources.tables.jobs);
  const tableName = 'workflow-runs-test';
  await aws.dynamodb.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: WORKFLOW_RUNS_TABLE.partitionKey, AttributeType: 'S' },
        { AttributeName: WORKFLOW_RUNS_TABLE.sortKey, AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: WORKFLOW_RUNS_TABLE.partitionKey, KeyType: 'HASH' },
        { AttributeName: WORKFLOW_RUNS_TABLE.sortKey, KeyType: 'RANGE' },
      ],
    }),
  );
  await aws.dynamodb.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: WORKFLOW_RUNS_TABLE.ttlAttribute, Enabled: true },
    }),
  );
  store = new DynamoWorkflowRunStore(aws.documents, tableName);
}, 120_000);
afterAll(() => aws?.stop());

function deps(): WorkflowRunDeps {
  dispatcher = new RecordingDispatcher();
  notices = new RecordingNotices();
  return { workflowRuns: store, runs, jobs, dispatcher, notices, config: { retentionDays: 30 } };
}

interface TaskSpec {
  key: string;
  dependsOn?: string[];
  when?: TriggerRule;
  upstream?: boolean;
  body?: string;
}

let workflows = 0;
/** A workflow head (not stored: the engine reads only its graph) and its version-1 task items (stored). */
async function workflow(tasks: TaskSpec[]): Promise<WorkflowHead> {
  const workflowId = `wf01JWF${String(++workflows).padStart(21, '0')}`;
  const graph = tasks.map((task, index) => ({
    key: task.key,
    dependsOn: task.dependsOn ?? [],
    when: task.when ?? 'all_succeeded',
    ...(task.upstream ? { input: 'upstream' as const } : {}),
    taskJobId: taskJobIdOf(workflowId, 1, index),
  }));
  await Promise.all(
    tasks.map((task, index) => {
      const item: WorkflowTaskJob = {
        ...jobFixture(T0, {
          tenantId: TENANT,
          jobId: taskJobIdOf(workflowId, 1, index),
          target: {
            url: `https://etl.example.com/${task.key}`,
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            ...(task.body === undefined ? {} : { body: task.body }),
          },
        }),
        kind: 'workflow-task',
        workflowId,
        workflowVersion: 1,
        taskKey: task.key,
      };
      return jobs.create(item);
    }),
  );
  return {
    tenantId: TENANT,
    jobId: workflowId,
    kind: 'workflow',
    name: 'nightly-etl',
    policies: { misfire: 'fire_once', overlap: 'allow' },
    onFailureUrl: 'https://hooks.example.com/failed',
    status: 'ACTIVE',
    version: 1,
    definitionVersion: 1,
    graph,
    retry: { maxAttempts: 3, initialDelaySeconds: 1, maxDelaySeconds: 300, multiplier: 2 },
    delivery: 'at-least-once',
    timeoutSeconds: 30,
    createdAt: T0,
    updatedAt: T0,
    occurrenceCount: 0,
  };
}

async function start(head: WorkflowHead, at = T0): Promise<WorkflowRun> {
  return startWorkflowRun(deps(), newWorkflowRun(head, at, at, 30), at);
}

const statusOf = (run: WorkflowRun, key: string) => run.tasks[key]?.status ?? 'PENDING';

/** Ends the task's current run as the executor and the completion handler would. */
async function end(
  run: WorkflowRun,
  key: string,
  status: Exclude<TerminalRunStatus, 'DEAD_LETTERED'>,
  options: { httpStatus?: number; excerpt?: string; retryAt?: number } = {},
): Promise<WorkflowRun> {
  const fresh = (await store.get(TENANT, run.workflowRunId)) as WorkflowRun;
  const runId = fresh.tasks[key]?.runId as string;
  const runKey: RunKey = { tenantId: TENANT, ...(parseRunId(runId) as Omit<RunKey, 'tenantId'>) };
  const at = T0 + 1000;
  await runs.claim(runKey, { owner: 'x', expiresAt: at + 60_000, now: at, takeOverExpired: true });
  await runs.complete(runKey, 'x', {
    status,
    completedAt: at,
    ...(options.httpStatus === undefined ? {} : { httpStatus: options.httpStatus }),
    ...(options.excerpt === undefined ? {} : { responseExcerpt: options.excerpt }),
  });
  const ended = {
    ...runKey,
    runId,
    status,
    completedAt: at,
    workflowRunId: run.workflowRunId,
    taskKey: key,
    ...(options.httpStatus === undefined ? {} : { httpStatus: options.httpStatus }),
    ...(options.retryAt === undefined ? {} : { nextAttemptAt: options.retryAt }),
  };
  return (await recordTaskRunEnd(deps(), ended, at)) as WorkflowRun;
}

const DIAMOND: TaskSpec[] = [
  { key: 'extract' },
  { key: 'clean', dependsOn: ['extract'] },
  { key: 'enrich', dependsOn: ['extract'] },
  { key: 'load', dependsOn: ['clean', 'enrich'], upstream: true, body: '{"table":"facts"}' },
  { key: 'page-oncall', dependsOn: ['load'], when: 'any_failed' },
];

describe('a workflow run', () => {
  it('runs a diamond in dependency order, fans in once on concurrent ends, and sends the upstream data', async () => {
    const head = await workflow(DIAMOND);
    let run = await start(head);
    expect(Object.keys(run.tasks)).toEqual(['extract']);
    expect(dispatcher.sent.map((sent) => sent.message.jobId)).toEqual([head.graph[0]?.taskJobId]);

    run = await end(run, 'extract', 'SUCCEEDED', { httpStatus: 200 });
    expect([statusOf(run, 'clean'), statusOf(run, 'enrich'), statusOf(run, 'load')]).toEqual([
      'QUEUED',
      'QUEUED',
      'PENDING',
    ]);

    // Both parents end at the same instant: each applies its end under the revision, the later one
    // sees both ended and starts `load`; the other, re-deciding, finds it started.
    await Promise.all([
      end(run, 'clean', 'SUCCEEDED', { httpStatus: 200, excerpt: 'cleaned 10 rows' }),
      end(run, 'enrich', 'SUCCEEDED', { httpStatus: 201, excerpt: 'enriched' }),
    ]);
    run = (await store.get(TENANT, run.workflowRunId)) as WorkflowRun;
    expect(statusOf(run, 'load')).toBe('QUEUED');
    const loadKey = { tenantId: TENANT, ...(parseRunId(run.tasks.load?.runId as string) as Omit<RunKey, 'tenantId'>) };
    const load = await runs.get(loadKey);
    expect(load?.workflowRunId).toBe(run.workflowRunId);
    expect(load?.taskKey).toBe('load');
    expect(JSON.parse(load?.requestBody as string)).toEqual({
      body: { table: 'facts' },
      upstream: {
        clean: { status: 'SUCCEEDED', httpStatus: 200, responseExcerpt: 'cleaned 10 rows' },
        enrich: { status: 'SUCCEEDED', httpStatus: 201, responseExcerpt: 'enriched' },
      },
    });
    const { items } = await runs.listByJob(TENANT, head.graph[3]?.taskJobId as string, { limit: 10 });
    expect(items).toHaveLength(1);

    run = await end(run, 'load', 'SUCCEEDED', { httpStatus: 200 });
    expect(statusOf(run, 'page-oncall')).toBe('SKIPPED');
    expect(run.tasks['page-oncall']?.skippedReason).toMatch(/.+/);
    expect(run.status).toBe('SUCCEEDED');
    expect(run.completedAt).toBeDefined();
    expect(notices.sent).toEqual([]);
  });

  it('skips what a failure blocks, starts the any_failed alarm, ends FAILED and notifies', async () => {
    const head = await workflow(DIAMOND);
    let run = await start(head);
    run = await end(run, 'extract', 'SUCCEEDED');
    run = await end(run, 'clean', 'SUCCEEDED');
    run = await end(run, 'enrich', 'FAILED', { httpStatus: 500 });
    expect(statusOf(run, 'load')).toBe('SKIPPED');
    expect(statusOf(run, 'page-oncall')).toBe('QUEUED');
    expect(run.status).toBe('RUNNING');
    run = await end(run, 'page-oncall', 'SUCCEEDED');
    expect(run.status).toBe('FAILED');
    expect(notices.sent).toHaveLength(1);
    expect(notices.sent[0]).toMatchObject({ jobId: head.jobId, scheduledFor: T0, status: 'FAILED', httpStatus: 500 });
  });

  it('keeps a task QUEUED on its next attempt while a retry is scheduled, and ignores a stale end', async () => {
    const head = await workflow(DIAMOND);
    let run = await start(head);
    const firstRunId = run.tasks.extract?.runId;
    run = await end(run, 'extract', 'FAILED', { retryAt: T0 + 5_000 });
    expect(run.tasks.extract).toMatchObject({ status: 'QUEUED', attempt: 2 });
    expect(run.tasks.extract?.runId).not.toBe(firstRunId);
    // The first attempt's record delivered again changes nothing.
    const again = await recordTaskRunEnd(
      deps(),
      {
        tenantId: TENANT,
        ...(parseRunId(firstRunId as string) as Omit<RunKey, 'tenantId'>),
        runId: firstRunId as string,
        status: 'FAILED',
        workflowRunId: run.workflowRunId,
        taskKey: 'extract',
      },
      T0 + 2000,
    );
    expect(again?.revision).toBe(run.revision);
  });

  it('starts a 50-way fan-in exactly once when its parents end concurrently', async () => {
    const parents = Array.from({ length: 50 }, (_, index) => ({ key: `shard-${index}` }));
    const head = await workflow([...parents, { key: 'merge', dependsOn: parents.map((parent) => parent.key) }]);
    const run = await start(head);
    expect(Object.keys(run.tasks)).toHaveLength(50);
    await Promise.all(parents.map((parent) => end(run, parent.key, 'SUCCEEDED')));
    const after = (await store.get(TENANT, run.workflowRunId)) as WorkflowRun;
    expect(statusOf(after, 'merge')).toBe('QUEUED');
    const merge = await runs.listByJob(TENANT, head.graph[50]?.taskJobId as string, { limit: 10 });
    expect(merge.items).toHaveLength(1);
    const ended = await end(after, 'merge', 'SUCCEEDED');
    expect(ended.status).toBe('SUCCEEDED');
  }, 60_000);

  it('retries only the failed tasks and what depends on them, in a new round', async () => {
    const head = await workflow(DIAMOND);
    let run = await start(head);
    run = await end(run, 'extract', 'SUCCEEDED');
    run = await end(run, 'clean', 'SUCCEEDED');
    run = await end(run, 'enrich', 'FAILED');
    await expect(retryWorkflowRun(deps(), TENANT, run.workflowRunId, T0 + 3000)).rejects.toThrow(/still going/);
    run = await end(run, 'page-oncall', 'SUCCEEDED');
    expect(run.status).toBe('FAILED');

    run = await retryWorkflowRun(deps(), TENANT, run.workflowRunId, T0 + 4000);
    expect(run.round).toBe(1);
    expect(run.status).toBe('RUNNING');
    expect(statusOf(run, 'extract')).toBe('SUCCEEDED');
    expect(statusOf(run, 'clean')).toBe('SUCCEEDED');
    expect(statusOf(run, 'page-oncall')).toBe('SUCCEEDED');
    expect(statusOf(run, 'enrich')).toBe('QUEUED');
    expect(statusOf(run, 'load')).toBe('PENDING');
    // The new round's attempt is a new run (new occurrence: a new Idempotency-Key), attempt 1 again.
    expect(parseRunId(run.tasks.enrich?.runId as string)).toMatchObject({ scheduledFor: T0 + 1, attempt: 1 });
    expect(dispatcher.sent.map((sent) => sent.message.runId)).toEqual([run.tasks.enrich?.runId]);

    run = await end(run, 'enrich', 'SUCCEEDED');
    run = await end(run, 'load', 'SUCCEEDED');
    expect(run.status).toBe('SUCCEEDED');
    await expect(retryWorkflowRun(deps(), TENANT, run.workflowRunId, T0 + 9000)).rejects.toThrow(/no task failed/);
  });

  it('cancels what has not started, soft-cancels what is in flight, and stays CANCELLED', async () => {
    const head = await workflow(DIAMOND);
    let run = await start(head);
    run = await end(run, 'extract', 'SUCCEEDED');
    const softCancelled: RunKey[] = [];
    const cancel = () =>
      cancelWorkflowRun(
        {
          ...deps(),
          cancelTaskRun: async (key) => {
            softCancelled.push(key);
          },
        },
        TENANT,
        run.workflowRunId,
        T0 + 2000,
      );
    run = await cancel();
    expect(run.status).toBe('CANCELLED');
    expect(statusOf(run, 'load')).toBe('CANCELLED');
    expect(statusOf(run, 'page-oncall')).toBe('CANCELLED');
    // The tasks in flight, and the first attempt of each task cancelled before it started (which a
    // step whose writer died may have put): those two do not exist, and their cancel is refused.
    expect(softCancelled.map((key) => `${key.jobId}#${key.attempt}`).sort()).toEqual(
      [1, 2, 3, 4].map((index) => `${head.graph[index]?.taskJobId}#1`).sort(),
    );
    // The in-flight tasks end on their own later: recorded, nothing starts, the run stays CANCELLED.
    run = await end(run, 'clean', 'SUCCEEDED');
    run = await end(run, 'enrich', 'CANCELLED');
    expect(run.status).toBe('CANCELLED');
    expect(statusOf(run, 'clean')).toBe('SUCCEEDED');
    await expect(retryWorkflowRun(deps(), TENANT, run.workflowRunId, T0 + 5000)).rejects.toThrow(/cancelled/);
    const view = workflowRunView((await getWorkflowRun({ workflowRuns: store, runs }, TENANT, run.workflowRunId)).run);
    expect(view.tasks.map((task) => [task.key, task.status])).toEqual([
      ['extract', 'SUCCEEDED'],
      ['clean', 'SUCCEEDED'],
      ['enrich', 'CANCELLED'],
      ['load', 'CANCELLED'],
      ['page-oncall', 'CANCELLED'],
    ]);
  });

  it('starts one workflow run per occurrence however often it is started', async () => {
    const head = await workflow(DIAMOND);
    const [a, b] = await Promise.all([start(head, T0 + 60_000), start(head, T0 + 60_000)]);
    expect(a.workflowRunId).toBe(b.workflowRunId);
    const { items } = await runs.listByJob(TENANT, head.graph[0]?.taskJobId as string, { limit: 10 });
    expect(items.filter((item) => item.scheduledFor === T0 + 60_000)).toHaveLength(1);
    const listed = await store.listByWorkflow(TENANT, head.jobId, { limit: 1 });
    expect(listed.items[0]?.workflowRunId).toBe(a.workflowRunId);
  });
});

describe('a task run that ends before the workflow run names it', () => {
  /** Ends an attempt in the runs table and hands its end to the workflow run, as the completion handler does. */
  async function endAttempt(run: WorkflowRun, key: RunKey, taskKey: string, options: { retryAt?: number } = {}) {
    const at = T0 + 1000 * key.attempt;
    await runs.claim(key, { owner: 'x', expiresAt: at + 60_000, now: at, takeOverExpired: true });
    await runs.complete(key, 'x', {
      status: options.retryAt ? 'FAILED' : 'SUCCEEDED',
      completedAt: at,
      httpStatus: 200,
    });
    const ended = {
      ...key,
      runId: runIdOf(key),
      status: options.retryAt ? ('FAILED' as const) : ('SUCCEEDED' as const),
      completedAt: at,
      httpStatus: 200,
      workflowRunId: run.workflowRunId,
      taskKey,
      ...(options.retryAt === undefined ? {} : { nextAttemptAt: options.retryAt }),
    };
    return (await recordTaskRunEnd(deps(), ended, at)) as WorkflowRun;
  }

  it('still moves the workflow run on (its starter died, or was slower, between the task-run put and the run write)', async () => {
    const head = await workflow(DIAMOND);
    const fresh = newWorkflowRun(head, T0, T0, 30);
    await store.create(fresh);
    const extract = head.graph[0] as WorkflowHead['graph'][number];
    // The starter's puts and sends, then it dies before writing the run.
    await startTaskRuns(deps(), fresh, [extract], T0);
    const key: RunKey = { tenantId: TENANT, jobId: extract.taskJobId, scheduledFor: T0, attempt: 1 };
    const run = await endAttempt(fresh, key, 'extract');
    expect(run.tasks.extract).toMatchObject({ status: 'SUCCEEDED', runId: runIdOf(key) });
    expect([statusOf(run, 'clean'), statusOf(run, 'enrich')]).toEqual(['QUEUED', 'QUEUED']);
  });

  it("applies a retry's end that comes before the record of its retry, and not the earlier attempt's again", async () => {
    const head = await workflow(DIAMOND);
    const run = await start(head);
    const extract = head.graph[0] as WorkflowHead['graph'][number];
    const first: RunKey = { tenantId: TENANT, jobId: extract.taskJobId, scheduledFor: T0, attempt: 1 };
    const second = { ...first, attempt: 2 };
    // The completion handler made attempt 2 and died before moving the record to it; attempt 2 ran and ended.
    await runs.createIfAbsent({
      ...(await runs.get(first)),
      ...second,
      runId: runIdOf(second),
      status: 'QUEUED',
    } as never);
    let after = await endAttempt(run, second, 'extract');
    expect(after.tasks.extract).toMatchObject({ status: 'SUCCEEDED', attempt: 2 });
    expect(statusOf(after, 'clean')).toBe('QUEUED');
    // The first attempt's record, delivered again, changes nothing.
    after = await endAttempt(run, first, 'extract', { retryAt: T0 + 5_000 });
    expect(after.tasks.extract).toMatchObject({ status: 'SUCCEEDED', attempt: 2 });
  });
});
