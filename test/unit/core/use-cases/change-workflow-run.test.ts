/**
 * A task whose request cannot be made (its upstream body, its item gone) ends FAILED without a
 * call, and the step is taken again: what that makes ready (an `any_failed` alarm) starts in the
 * same change, with its run put, so the workflow run never names a task run that does not exist.
 */
import { describe, expect, it } from 'vitest';
import { runIdOf } from '#core/run-id';
import { newWorkflowRun, startWorkflowRun } from '#core/use-cases/workflows/start-workflow-run';
import { recordTaskRunEnd } from '#core/use-cases/workflows/task-run-ended';
import type { WorkflowHead } from '#core/workflows/stored';
import { taskRunKeyOf } from '#core/workflows/task-run-id';
import { taskJobIdOf } from '#core/workflows/workflow-ids';
import { RecordingDispatcher } from '../../../support/fakes/fakes.ts';
import { InMemoryJobRepository } from '../../../support/fakes/in-memory-jobs.ts';
import { InMemoryRunRepository } from '../../../support/fakes/in-memory-runs.ts';
import { InMemoryWorkflowRunStore } from '../../../support/fakes/in-memory-workflow-runs.ts';

const T0 = Date.parse('2026-06-01T02:00:00Z');
const WORKFLOW = 'wf01JWFCHANGE00000000000000A';

const HEAD = {
  tenantId: 't',
  jobId: WORKFLOW,
  kind: 'workflow',
  policies: { misfire: 'fire_once', overlap: 'allow' },
  status: 'ACTIVE',
  version: 1,
  definitionVersion: 1,
  graph: [
    { key: 'extract', dependsOn: [], when: 'all_succeeded', taskJobId: taskJobIdOf(WORKFLOW, 1, 0) },
    // Its item is not stored: its upstream body cannot be made.
    {
      key: 'load',
      dependsOn: ['extract'],
      when: 'all_succeeded',
      input: 'upstream',
      taskJobId: taskJobIdOf(WORKFLOW, 1, 1),
    },
    { key: 'page-oncall', dependsOn: ['load'], when: 'any_failed', taskJobId: taskJobIdOf(WORKFLOW, 1, 2) },
  ],
  retry: { maxAttempts: 3, initialDelaySeconds: 1, maxDelaySeconds: 300, multiplier: 2 },
  delivery: 'at-least-once',
  timeoutSeconds: 30,
  createdAt: T0,
  updatedAt: T0,
  occurrenceCount: 0,
} satisfies WorkflowHead;

describe('a task that cannot start', () => {
  it('ends FAILED without a run, and the any_failed task it makes ready starts with its run put and sent', async () => {
    const runs = new InMemoryRunRepository();
    const dispatcher = new RecordingDispatcher();
    const deps = {
      workflowRuns: new InMemoryWorkflowRunStore(),
      runs,
      jobs: new InMemoryJobRepository(),
      dispatcher,
      config: { retentionDays: 30 },
    };
    const run = await startWorkflowRun(deps, newWorkflowRun(HEAD, T0, T0, 30), T0);
    const extract = taskRunKeyOf(run, taskJobIdOf(WORKFLOW, 1, 0), 0, 1);
    const ended = {
      ...extract,
      runId: runIdOf(extract),
      status: 'SUCCEEDED' as const,
      workflowRunId: run.workflowRunId,
      taskKey: 'extract',
    };
    const after = await recordTaskRunEnd(deps, ended, T0 + 1000);

    expect(after?.tasks.load).toMatchObject({ status: 'FAILED', errorType: 'invalid_target' });
    expect(await runs.get(taskRunKeyOf(run, taskJobIdOf(WORKFLOW, 1, 1), 0, 1))).toBeUndefined();
    const alarm = taskRunKeyOf(run, taskJobIdOf(WORKFLOW, 1, 2), 0, 1);
    expect(after?.tasks['page-oncall']).toMatchObject({ status: 'QUEUED', runId: runIdOf(alarm) });
    expect(await runs.get(alarm)).toMatchObject({ status: 'QUEUED', taskKey: 'page-oncall' });
    expect(dispatcher.sent.map((sent) => sent.message.runId)).toContain(runIdOf(alarm));
    expect(after?.status).toBe('RUNNING');
  });
});
