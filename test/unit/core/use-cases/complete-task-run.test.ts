/**
 * The completion handler on a workflow task's run: a failed attempt's retry is the task's (it
 * carries the workflow run, the task and the upstream body), unless the workflow run was cancelled
 * meanwhile; the task item is never finished or notified; the end moves the workflow run on.
 */
import { describe, expect, it } from 'vitest';
import { runIdOf } from '#core/run-id';
import { completeRun } from '#core/use-cases/complete-run';
import { newRun } from '#core/use-cases/new-run';
import { newWorkflowRun, startWorkflowRun } from '#core/use-cases/workflows/start-workflow-run';
import type { WorkflowHead } from '#core/workflows/stored';
import { taskRunKeyOf } from '#core/workflows/task-run-id';
import { taskJobIdOf } from '#core/workflows/workflow-ids';
import { RecordingDispatcher, RecordingNotices } from '../../../support/fakes/fakes.ts';
import { InMemoryJobRepository } from '../../../support/fakes/in-memory-jobs.ts';
import { InMemoryRunRepository } from '../../../support/fakes/in-memory-runs.ts';
import { InMemoryWorkflowRunStore } from '../../../support/fakes/in-memory-workflow-runs.ts';

const T0 = Date.parse('2026-06-01T02:00:00Z');
const WORKFLOW = 'wf01JWFCOMP0000000000000000A';
const HEAD = {
  tenantId: 't',
  jobId: WORKFLOW,
  kind: 'workflow',
  onFailureUrl: 'https://hooks.example.com/failed',
  policies: { misfire: 'fire_once', overlap: 'allow' },
  status: 'ACTIVE',
  version: 1,
  definitionVersion: 1,
  graph: [
    { key: 'a', dependsOn: [], when: 'all_succeeded', taskJobId: taskJobIdOf(WORKFLOW, 1, 0) },
    { key: 'b', dependsOn: ['a'], when: 'all_succeeded', taskJobId: taskJobIdOf(WORKFLOW, 1, 1) },
  ],
  retry: { maxAttempts: 3, initialDelaySeconds: 1, maxDelaySeconds: 300, multiplier: 2 },
  delivery: 'at-least-once',
  timeoutSeconds: 30,
  createdAt: T0,
  updatedAt: T0,
  occurrenceCount: 0,
} satisfies WorkflowHead;

async function setup() {
  const runs = new InMemoryRunRepository();
  const jobs = new InMemoryJobRepository();
  const workflowRuns = new InMemoryWorkflowRunStore();
  const dispatcher = new RecordingDispatcher();
  const notices = new RecordingNotices();
  const workflows = { workflowRuns, runs, jobs, dispatcher, notices, config: { retentionDays: 30 } };
  const deps = { jobs, runs, dispatcher, notices, config: { retentionDays: 30 }, workflows };
  const workflowRun = await startWorkflowRun(workflows, newWorkflowRun(HEAD, T0, T0, 30), T0);
  const key = taskRunKeyOf(workflowRun, taskJobIdOf(WORKFLOW, 1, 0), 0, 1);
  const failed = {
    ...newRun(
      { tenantId: 't', jobId: key.jobId, workflowRunId: workflowRun.workflowRunId, taskKey: 'a', requestBody: '{}' },
      key.scheduledFor,
      1,
      T0,
      30,
    ),
    status: 'FAILED' as const,
    httpStatus: 500,
    completedAt: T0 + 100,
  };
  return { deps, workflowRuns, runs, dispatcher, notices, workflowRun, key, failed };
}

describe('completing a workflow task run', () => {
  it("schedules the task's retry as the task's, and keeps the task QUEUED on it", async () => {
    const { deps, workflowRuns, runs, workflowRun, key, failed } = await setup();
    const change = await completeRun(deps, { ...failed, nextAttemptAt: T0 + 2_000 }, T0 + 200);
    expect(change).toBe('retry-scheduled');
    const retry = await runs.get({ ...key, attempt: 2 });
    expect(retry).toMatchObject({
      status: 'QUEUED',
      workflowRunId: workflowRun.workflowRunId,
      taskKey: 'a',
      requestBody: '{}',
    });
    const after = await workflowRuns.get('t', workflowRun.workflowRunId);
    expect(after?.tasks.a).toMatchObject({ status: 'QUEUED', attempt: 2, runId: runIdOf({ ...key, attempt: 2 }) });
  });

  it('does not retry a task of a cancelled workflow run: the attempt is its last', async () => {
    const { deps, workflowRuns, runs, workflowRun, key, failed } = await setup();
    const stored = workflowRuns.items.get(`t/${workflowRun.workflowRunId}`);
    if (stored) stored.cancelRequestedAt = T0 + 50;
    expect(await completeRun(deps, { ...failed, nextAttemptAt: T0 + 2_000 }, T0 + 200)).toBe('unchanged');
    expect(await runs.get({ ...key, attempt: 2 })).toBeUndefined();
    expect((await workflowRuns.get('t', workflowRun.workflowRunId))?.tasks.a?.status).toBe('FAILED');
  });

  it('ends the workflow run FAILED on the last attempt, skips what depends on it and notifies the workflow', async () => {
    const { deps, workflowRuns, notices, workflowRun, failed } = await setup();
    await completeRun(deps, failed, T0 + 200);
    const after = await workflowRuns.get('t', workflowRun.workflowRunId);
    expect(after?.status).toBe('FAILED');
    expect(after?.tasks.b?.status).toBe('SKIPPED');
    expect(notices.sent).toEqual([expect.objectContaining({ jobId: WORKFLOW, runId: failed.runId, httpStatus: 500 })]);
  });
});
