/**
 * update-workflow.ts with in-memory ports: a new version's task items are written once, before the
 * head, even when the head write loses a race with the scanner and is decided again; a stale
 * If-Match writes nothing; a schedule change moves the due-index entry (and is metered when due
 * at once), `schedule: null` takes it out.
 */
import { describe, expect, it } from 'vitest';
import { ConflictError } from '#core/errors';
import { createWorkflow } from '#core/use-cases/workflows/create-workflow';
import { updateWorkflow } from '#core/use-cases/workflows/update-workflow';
import { parseCreateWorkflow } from '#core/workflows/parse-workflow';
import type { WorkflowRepository } from '#core/workflows/ports';
import type { WorkflowHead, WorkflowTaskJob } from '#core/workflows/stored';
import { HORIZON_MS, NOW, setup, TENANT } from '../manage-fixtures.ts';

const WORKFLOW_ID = 'wf01JDQ6Z8N5W7X3K2M4P9R0T1VB';

/** WorkflowRepository over the in-memory jobs, counting task item puts; `beforeReplace` runs before each head write. */
function workflowsOver(jobs: ReturnType<typeof setup>['jobs'], beforeReplace: () => Promise<void> = async () => {}) {
  const puts: string[] = [];
  const repository: WorkflowRepository = {
    async create(head, tasks) {
      for (const task of tasks) jobs.items.set(`${task.tenantId}/${task.jobId}`, structuredClone(task));
      puts.push(...tasks.map((t) => t.jobId));
      await jobs.create(head as never);
    },
    async get(tenantId, id) {
      const item = await jobs.get(tenantId, id);
      return (item as { kind?: string } | undefined)?.kind === 'workflow'
        ? (item as unknown as WorkflowHead)
        : undefined;
    },
    async getTasks(tenantId, ids) {
      const items = await Promise.all(ids.map((id) => jobs.get(tenantId, id)));
      return items.filter(
        (i) => (i as { kind?: string } | undefined)?.kind === 'workflow-task',
      ) as unknown as WorkflowTaskJob[];
    },
    async list() {
      return { items: [] };
    },
    async replace(head, tasks, expectedVersion) {
      for (const task of tasks) jobs.items.set(`${task.tenantId}/${task.jobId}`, structuredClone(task));
      puts.push(...tasks.map((t) => t.jobId));
      await beforeReplace();
      return jobs.replace(head as never, expectedVersion);
    },
  };
  return { repository, puts };
}

const tasksOf = (...keys: string[]) =>
  parseCreateWorkflow(
    {
      tasks: keys.map((key, i) => ({
        key,
        target: { url: `https://example.com/${key}` },
        ...(i === 0 ? {} : { dependsOn: [keys[i - 1] as string] }),
      })),
    },
    NOW,
  ).tasks;

async function planted(schedule?: Record<string, unknown>) {
  const env = setup();
  const created = { repository: workflowsOver(env.jobs).repository };
  const fields = parseCreateWorkflow(
    { tasks: [{ key: 'a', target: { url: 'https://example.com/a' } }], ...(schedule ? { schedule } : {}) },
    NOW,
  );
  await createWorkflow({ ...env.deps, workflows: created.repository }, TENANT, fields, NOW, WORKFLOW_ID);
  return env;
}

describe('updateWorkflow', () => {
  it("writes the new version's items once, and decides the head again after losing a race with the scanner", async () => {
    const env = await planted({
      type: 'interval',
      everySeconds: 3600,
      startAt: new Date(NOW + 86_400_000).toISOString(),
    });
    let raced = false;
    const { repository, puts } = workflowsOver(env.jobs, async () => {
      if (raced) return;
      raced = true;
      // The scanner advances the head between the read and the write: its internal version moves on.
      const head = (await env.jobs.get(TENANT, WORKFLOW_ID)) as never as { version: number };
      await env.jobs.replace({ ...(head as object), version: head.version + 1 } as never, head.version);
    });
    const after = await updateWorkflow(
      { ...env.deps, workflows: repository },
      TENANT,
      WORKFLOW_ID,
      { tasks: tasksOf('x', 'y') },
      1,
      NOW + 1,
    );
    expect(raced).toBe(true);
    expect(puts).toEqual([`${WORKFLOW_ID}v2t0`, `${WORKFLOW_ID}v2t1`]);
    expect(after.definitionVersion).toBe(2);
    expect(after.graph.map((e) => e.taskJobId)).toEqual([`${WORKFLOW_ID}v2t0`, `${WORKFLOW_ID}v2t1`]);
    expect((await repository.get(TENANT, WORKFLOW_ID))?.graph).toEqual(after.graph);
    expect((await env.jobs.get(TENANT, `${WORKFLOW_ID}v1t0`)) as unknown).toMatchObject({
      taskKey: 'a',
      workflowVersion: 1,
    });
  });

  it('refuses a stale If-Match before writing any task item', async () => {
    const env = await planted();
    const { repository, puts } = workflowsOver(env.jobs);
    await expect(
      updateWorkflow({ ...env.deps, workflows: repository }, TENANT, WORKFLOW_ID, { tasks: tasksOf('x') }, 7, NOW),
    ).rejects.toBeInstanceOf(ConflictError);
    expect(puts).toEqual([]);
    expect(env.jobs.items.has(`${TENANT}/${WORKFLOW_ID}v8t0`)).toBe(false);
  });

  it('puts a trigger-only workflow in the due-index with a schedule (metered when due at once) and takes it out with null', async () => {
    const env = await planted();
    const { repository } = workflowsOver(env.jobs);
    const deps = { ...env.deps, workflows: repository };
    const taken: number[] = [];
    const meter = { take: async (runs: number) => void taken.push(runs) };
    const soon = await updateWorkflow(
      deps,
      TENANT,
      WORKFLOW_ID,
      { schedule: { type: 'once', at: NOW + HORIZON_MS / 2 } },
      1,
      NOW,
      meter,
    );
    expect(taken).toEqual([1]);
    // Materialized at once, as a job's PATCH: its starter run exists, the head has nothing left to fire.
    expect(env.runsOf(WORKFLOW_ID).map((run) => run.scheduledFor)).toEqual([NOW + HORIZON_MS / 2]);
    expect(soon.definitionVersion).toBe(2);

    const off = await updateWorkflow(deps, TENANT, WORKFLOW_ID, { schedule: null }, 2, NOW + 1, meter);
    expect(off.schedule).toBeUndefined();
    expect(off.nextFireAt).toBeUndefined();
    expect(off.dueShard).toBeUndefined();
    expect(taken).toEqual([1]);
    // Its starter run still QUEUED ahead is discarded, as a job's runs ahead are on a new schedule.
    expect(env.runsOf(WORKFLOW_ID)).toEqual([]);
  });
});
