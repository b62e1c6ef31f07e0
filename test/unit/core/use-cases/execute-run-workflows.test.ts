/**
 * The executor's part in workflows: a scheduled workflow's occurrence (a starter run) starts its
 * workflow run at its due time instead of a call, or is skipped under `overlap: "forbid"` while
 * an earlier run is RUNNING; a task run is called with the body its start made (upstream input),
 * is never "superseded" by its item's inert schedule, and is not called once its workflow is deleted.
 */
import { describe, expect, it } from 'vitest';
import { runIdOf } from '#core/run-id';
import { fixedSigningKeys, newSigningSecret } from '#core/signing';
import { executeRun } from '#core/use-cases/execute-run';
import { newRun } from '#core/use-cases/new-run';
import type { WorkflowHead, WorkflowTaskJob } from '#core/workflows/stored';
import { taskRunKeyOf, workflowRunIdOf } from '#core/workflows/task-run-id';
import { taskJobIdOf } from '#core/workflows/workflow-ids';
import { FakeClock, RecordingDispatcher, RecordingNotices, ScriptedInvoker } from '../../../support/fakes/fakes.ts';
import { InMemoryJobRepository } from '../../../support/fakes/in-memory-jobs.ts';
import { InMemoryRunRepository } from '../../../support/fakes/in-memory-runs.ts';
import { InMemoryWorkflowRunStore } from '../../../support/fakes/in-memory-workflow-runs.ts';
import { jobFixture } from '../../../support/job-fixture.ts';

const DUE = Date.parse('2026-06-01T02:00:00Z');
const WORKFLOW = 'wf01JWFEXEC0000000000000000A';
const TENANT = 't';

function head(overrides: Partial<WorkflowHead> = {}): WorkflowHead {
  return {
    tenantId: TENANT,
    jobId: WORKFLOW,
    kind: 'workflow',
    schedule: { type: 'cron', expression: '0 2 * * *', timezone: 'UTC', startAt: DUE - 86_400_000 },
    policies: { misfire: 'fire_once', overlap: 'allow' },
    status: 'ACTIVE',
    version: 3,
    definitionVersion: 1,
    graph: [
      { key: 'extract', dependsOn: [], when: 'all_succeeded', taskJobId: taskJobIdOf(WORKFLOW, 1, 0) },
      {
        key: 'load',
        dependsOn: ['extract'],
        when: 'all_succeeded',
        input: 'upstream',
        taskJobId: taskJobIdOf(WORKFLOW, 1, 1),
      },
    ],
    retry: { maxAttempts: 3, initialDelaySeconds: 1, maxDelaySeconds: 300, multiplier: 2 },
    delivery: 'at-least-once',
    timeoutSeconds: 30,
    createdAt: DUE - 86_400_000,
    updatedAt: DUE - 86_400_000,
    occurrenceCount: 1,
    ...overrides,
  };
}

function taskItem(index: number, key: string): WorkflowTaskJob {
  return {
    ...jobFixture(DUE - 86_400_000, {
      tenantId: TENANT,
      jobId: taskJobIdOf(WORKFLOW, 1, index),
      target: {
        url: `https://etl.example.com/${key}`,
        method: 'POST',
        headers: { 'Content-Type': 'text/plain' },
        body: 'own',
      },
    }),
    kind: 'workflow-task',
    workflowId: WORKFLOW,
    workflowVersion: 1,
    taskKey: key,
  };
}

async function setup(workflow: WorkflowHead = head()) {
  const jobs = new InMemoryJobRepository();
  const runs = new InMemoryRunRepository();
  const workflowRuns = new InMemoryWorkflowRunStore();
  const clock = new FakeClock(DUE - 500);
  const invoker = new ScriptedInvoker(clock, () => ({
    kind: 'response',
    status: 200,
    bodyExcerpt: 'ok',
    durationMs: 3,
  }));
  const dispatcher = new RecordingDispatcher();
  await jobs.create(workflow as never);
  await jobs.create(taskItem(0, 'extract'));
  await jobs.create(taskItem(1, 'load'));
  const deps = {
    jobs,
    runs,
    invoker,
    signingKeys: fixedSigningKeys([newSigningSecret()]),
    clock,
    random: () => 0.5,
    config: { leaseMarginMs: 30_000, owner: 'exec-1' },
    workflows: {
      workflowRuns,
      runs,
      jobs,
      dispatcher,
      notices: new RecordingNotices(),
      config: { retentionDays: 30 },
    },
  };
  return { deps, jobs, runs, workflowRuns, invoker, dispatcher };
}

describe('a scheduled workflow occurrence in the executor', () => {
  it('starts its workflow run at the due time, with its first task queued and sent, and ends SUCCEEDED without a call', async () => {
    const { deps, runs, workflowRuns, invoker, dispatcher } = await setup();
    const starter = newRun({ tenantId: TENANT, jobId: WORKFLOW, schedule: { type: 'cron' } }, DUE, 1, DUE - 60_000, 30);
    await runs.createIfAbsent(starter);
    const result = await executeRun(deps, {
      tenantId: TENANT,
      jobId: WORKFLOW,
      scheduledFor: DUE,
      attempt: 1,
      runId: starter.runId,
    });
    const workflowRunId = workflowRunIdOf({ workflowId: WORKFLOW, scheduledFor: DUE });
    expect(result).toEqual({ kind: 'workflow-started', workflowRunId });
    expect(invoker.requests).toEqual([]);
    expect(await runs.get(starter)).toMatchObject({ status: 'SUCCEEDED', startedAt: DUE });
    const run = await workflowRuns.get(TENANT, workflowRunId);
    expect(run).toMatchObject({ status: 'RUNNING', version: 1, startedAt: DUE });
    expect(Object.keys(run?.tasks ?? {})).toEqual(['extract']);
    expect(dispatcher.sent.map((sent) => sent.message.jobId)).toEqual([taskJobIdOf(WORKFLOW, 1, 0)]);
  });

  it('is skipped under overlap "forbid" while an earlier workflow run holds the workflow', async () => {
    const { deps, runs, workflowRuns, jobs } = await setup(
      head({ policies: { misfire: 'fire_once', overlap: 'forbid' } }),
    );
    await jobs.takeInFlight(
      TENANT,
      WORKFLOW,
      { scheduledFor: DUE - 60_000, runId: 'earlier', until: DUE + 3_600_000 },
      DUE,
    );
    const starter = newRun({ tenantId: TENANT, jobId: WORKFLOW, schedule: { type: 'cron' } }, DUE, 1, DUE - 60_000, 30);
    await runs.createIfAbsent(starter);
    const result = await executeRun(deps, {
      tenantId: TENANT,
      jobId: WORKFLOW,
      scheduledFor: DUE,
      attempt: 1,
      runId: starter.runId,
    });
    expect(result.kind).toBe('skipped');
    expect(await runs.get(starter)).toMatchObject({ status: 'SKIPPED', errorType: 'overlap' });
    expect(workflowRuns.items.size).toBe(0);
  });
});

describe('a workflow task run in the executor', () => {
  async function taskRun(requestBody?: string) {
    const ctx = await setup();
    const key = taskRunKeyOf({ tenantId: TENANT, scheduledFor: DUE }, taskJobIdOf(WORKFLOW, 1, 1), 0, 1);
    const workflowRunId = workflowRunIdOf({ workflowId: WORKFLOW, scheduledFor: DUE });
    const run = newRun(
      { tenantId: TENANT, jobId: key.jobId, workflowRunId, taskKey: 'load', ...(requestBody ? { requestBody } : {}) },
      key.scheduledFor,
      1,
      DUE + 5_000,
      30,
    );
    await ctx.runs.createIfAbsent(run);
    ctx.deps.clock.current = DUE + 5_000;
    const message = { ...key, runId: runIdOf(key) };
    return { ...ctx, message };
  }

  it('is called with the body its start made, as JSON, never skipped as superseded by its inert schedule', async () => {
    const body = '{"body":"own","upstream":{"extract":{"status":"SUCCEEDED","httpStatus":200}}}';
    const { deps, message, invoker, runs } = await taskRun(body);
    const result = await executeRun(deps, message);
    expect(result.kind).toBe('called');
    expect(invoker.requests[0]?.body).toBe(body);
    expect(invoker.requests[0]?.headers['content-type']).toBe('application/json');
    expect(
      Object.keys(invoker.requests[0]?.headers ?? {}).filter((name) => name.toLowerCase() === 'content-type'),
    ).toHaveLength(1);
    expect(await runs.get(message)).toMatchObject({
      status: 'SUCCEEDED',
      workflowRunId: expect.any(String),
      taskKey: 'load',
    });
  });

  it('is called with its item own body when it takes no upstream input', async () => {
    const { deps, message, invoker } = await taskRun();
    await executeRun(deps, message);
    expect(invoker.requests[0]?.body).toBe('own');
  });

  it('ends CANCELLED without a call once its workflow is deleted', async () => {
    const { deps, message, invoker, runs, jobs } = await taskRun();
    const stored = jobs.items.get(`${TENANT}/${WORKFLOW}`) as unknown as WorkflowHead;
    stored.status = 'CANCELLED';
    expect((await executeRun(deps, message)).kind).toBe('cancelled');
    expect(invoker.requests).toEqual([]);
    expect(await runs.get(message)).toMatchObject({ status: 'CANCELLED', errorType: 'cancelled' });
  });
});
