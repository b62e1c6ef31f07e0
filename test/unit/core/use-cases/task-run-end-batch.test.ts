/**
 * The ends of one workflow run's tasks in one completion batch go in one change: a 50-way fan-in's
 * parents ending together cost a few writes of the run item, not one race per end, and the fan-in
 * starts once. A change that fails fails every end it carried (their records are redelivered).
 */
import { describe, expect, it } from 'vitest';
import { runIdOf } from '#core/run-id';
import { newWorkflowRun, startWorkflowRun } from '#core/use-cases/workflows/start-workflow-run';
import { TaskRunEndBatch } from '#core/use-cases/workflows/task-run-end-batch';
import type { WorkflowHead, WorkflowRun } from '#core/workflows/stored';
import { taskRunKeyOf } from '#core/workflows/task-run-id';
import { taskJobIdOf } from '#core/workflows/workflow-ids';
import { RecordingDispatcher, RecordingNotices } from '../../../support/fakes/fakes.ts';
import { InMemoryJobRepository } from '../../../support/fakes/in-memory-jobs.ts';
import { InMemoryRunRepository } from '../../../support/fakes/in-memory-runs.ts';
import { InMemoryWorkflowRunStore } from '../../../support/fakes/in-memory-workflow-runs.ts';

const T0 = Date.parse('2026-06-01T02:00:00Z');
const WORKFLOW = 'wf01JWFBATCH000000000000000A';
const PARENTS = Array.from({ length: 50 }, (_, index) => `shard-${index}`);

const HEAD = {
  tenantId: 't',
  jobId: WORKFLOW,
  kind: 'workflow',
  policies: { misfire: 'fire_once', overlap: 'allow' },
  status: 'ACTIVE',
  version: 1,
  definitionVersion: 1,
  graph: [
    ...PARENTS.map((key, index) => ({
      key,
      dependsOn: [],
      when: 'all_succeeded' as const,
      taskJobId: taskJobIdOf(WORKFLOW, 1, index),
    })),
    { key: 'merge', dependsOn: PARENTS, when: 'all_succeeded', taskJobId: taskJobIdOf(WORKFLOW, 1, 50) },
  ],
  retry: { maxAttempts: 3, initialDelaySeconds: 1, maxDelaySeconds: 300, multiplier: 2 },
  delivery: 'at-least-once',
  timeoutSeconds: 30,
  createdAt: T0,
  updatedAt: T0,
  occurrenceCount: 0,
} satisfies WorkflowHead;

/** The store, counting every write and every write that lost. */
class CountingStore extends InMemoryWorkflowRunStore {
  replaces = 0;
  lost = 0;
  failNext = false;
  override async replace(run: WorkflowRun, expected: number): Promise<boolean> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('store down');
    }
    this.replaces++;
    const written = await super.replace(run, expected);
    if (!written) this.lost++;
    return written;
  }
}

async function setup() {
  const workflowRuns = new CountingStore();
  const runs = new InMemoryRunRepository();
  const deps = {
    workflowRuns,
    runs,
    jobs: new InMemoryJobRepository(),
    dispatcher: new RecordingDispatcher(),
    notices: new RecordingNotices(),
    config: { retentionDays: 30 },
  };
  const run = await startWorkflowRun(deps, newWorkflowRun(HEAD, T0, T0, 30), T0);
  workflowRuns.replaces = 0;
  const ends = HEAD.graph.slice(0, 50).map((entry) => {
    const key = taskRunKeyOf(run, entry.taskJobId, 0, 1);
    return {
      ...key,
      runId: runIdOf(key),
      status: 'SUCCEEDED' as const,
      completedAt: T0 + 1000,
      workflowRunId: run.workflowRunId,
      taskKey: entry.key,
    };
  });
  return { deps, workflowRuns, runs, run, ends };
}

describe('a batch of task-run ends', () => {
  it('applies 50 parents ending together in a few changes, none lost, and starts the fan-in once', async () => {
    const { deps, workflowRuns, runs, run, ends } = await setup();
    const batch = new TaskRunEndBatch(deps, () => T0 + 1000);
    await Promise.all(ends.map((ended) => batch.record(ended)));
    const after = await workflowRuns.get('t', run.workflowRunId);
    expect(PARENTS.every((key) => after?.tasks[key]?.status === 'SUCCEEDED')).toBe(true);
    expect(after?.tasks.merge?.status).toBe('QUEUED');
    expect(workflowRuns.replaces).toBeLessThanOrEqual(2);
    expect(workflowRuns.lost).toBe(0);
    const merge = taskRunKeyOf(run, taskJobIdOf(WORKFLOW, 1, 50), 0, 1);
    expect(await runs.get(merge)).toMatchObject({ status: 'QUEUED', taskKey: 'merge' });
  });

  it('fails every end a failed change carried, and applies the ends that come after it', async () => {
    const { deps, workflowRuns, run, ends } = await setup();
    const batch = new TaskRunEndBatch(deps, () => T0 + 1000);
    workflowRuns.failNext = true;
    const first = await Promise.allSettled(ends.slice(0, 10).map((ended) => batch.record(ended)));
    expect(first.every((result) => result.status === 'rejected')).toBe(true);
    expect(Object.keys((await workflowRuns.get('t', run.workflowRunId))?.tasks ?? {}).length).toBe(50);
    expect((await workflowRuns.get('t', run.workflowRunId))?.tasks['shard-0']?.status).toBe('QUEUED');
    await Promise.all(ends.map((ended) => batch.record(ended)));
    expect((await workflowRuns.get('t', run.workflowRunId))?.tasks.merge?.status).toBe('QUEUED');
  });
});

describe('a step that loses its write to a cancel', () => {
  it('removes the task run it put for a task the cancel ended, while that run is still QUEUED', async () => {
    const { recordTaskRunEnd } = await import('#core/use-cases/workflows/task-run-ended');
    const head = { ...HEAD, graph: [HEAD.graph[0], { ...HEAD.graph[50], dependsOn: ['shard-0'] }] } as WorkflowHead;
    const workflowRuns = new InMemoryWorkflowRunStore();
    const runs = new InMemoryRunRepository();
    const deps = {
      workflowRuns,
      runs,
      jobs: new InMemoryJobRepository(),
      dispatcher: new RecordingDispatcher(),
      config: { retentionDays: 30 },
    };
    const run = await startWorkflowRun(deps, newWorkflowRun(head, T0, T0, 30), T0);
    // A cancel lands between this step's put of `merge` and its write of the run.
    const replace = workflowRuns.replace.bind(workflowRuns);
    let cancelled = false;
    workflowRuns.replace = async (next, expected) => {
      if (!cancelled) {
        cancelled = true;
        const stored = (await workflowRuns.get('t', run.workflowRunId)) as WorkflowRun;
        const tasks = { ...stored.tasks, merge: { status: 'CANCELLED' as const, skippedReason: 'cancelled' } };
        await replace(
          { ...stored, tasks, cancelRequestedAt: T0 + 500, status: 'CANCELLED', revision: stored.revision + 1 },
          stored.revision,
        );
      }
      return replace(next, expected);
    };
    const key = taskRunKeyOf(run, head.graph[0]?.taskJobId as string, 0, 1);
    const merge = taskRunKeyOf(run, head.graph[1]?.taskJobId as string, 0, 1);
    const ended = {
      ...key,
      runId: runIdOf(key),
      status: 'SUCCEEDED' as const,
      workflowRunId: run.workflowRunId,
      taskKey: 'shard-0',
    };
    const after = await recordTaskRunEnd(deps, ended, T0 + 1000);
    expect(after?.tasks.merge?.status).toBe('CANCELLED');
    expect(after?.tasks['shard-0']?.status).toBe('SUCCEEDED');
    expect(await runs.get(merge)).toBeUndefined();
  });
});
