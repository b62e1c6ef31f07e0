/**
 * Issue #22, the `priority` field from the request to the lane of a run's message: parsing (any
 * value is a lane or a 400 naming the field), storage (`normal` is stored as no lane), the views,
 * and every way a run is made taking its job's lane — the scanner from the due index, a PATCH for
 * the runs made after it, a workflow task from its workflow run's graph.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { definitionVersionOf } from '#core/definition-version';
import { ValidationError } from '#core/errors';
import { parseCreateJobRequest } from '#core/job-input';
import { PRIORITIES } from '#core/priority';
import { dispatchRequestOf } from '#core/runs/send-runs';
import { parseUpdateJob } from '#core/update-input';
import { redriveRun } from '#core/use-cases/dead-letters';
import { scanDueJobs } from '#core/use-cases/scan-due-jobs';
import { updateJob } from '#core/use-cases/update-job';
import { newWorkflowRun, startWorkflowRun } from '#core/use-cases/workflows/start-workflow-run';
import { taskItemsOf } from '#core/use-cases/workflows/task-items';
import { jobView, runView } from '#core/views';
import { parseCreateWorkflow } from '#core/workflows/parse-workflow';
import type { WorkflowHead } from '#core/workflows/stored';
import { workflowView } from '#core/workflows/workflow-view';
import { RecordingDispatcher } from '../../support/fakes/fakes.ts';
import { InMemoryJobRepository } from '../../support/fakes/in-memory-jobs.ts';
import { InMemoryRunRepository } from '../../support/fakes/in-memory-runs.ts';
import { InMemoryWorkflowRunStore } from '../../support/fakes/in-memory-workflow-runs.ts';
import { every, NOW, setup, TENANT } from './use-cases/manage-fixtures.ts';

const target = { url: 'https://example.com/hook' };
const once = { type: 'once' as const };

/** The problems a parse threw, or undefined when it did not throw. */
function problemsOf(parse: () => unknown) {
  try {
    parse();
    return undefined;
  } catch (error) {
    if (error instanceof ValidationError) return error.details;
    throw error;
  }
}

describe('the priority field', () => {
  it('stores high and low, stores normal as no lane, and shows every job and run with its lane', () => {
    for (const priority of PRIORITIES) {
      const { fields } = parseCreateJobRequest({ target, schedule: once, priority }, NOW);
      expect(fields.priority).toBe(priority === 'normal' ? undefined : priority);
    }
    const absent = parseCreateJobRequest({ target, schedule: once }, NOW).fields;
    expect('priority' in absent).toBe(false);
  });

  it('reads any value as one of the three lanes or refuses it naming the field, on create, PATCH and workflow tasks', () => {
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...PRIORITIES, 'HIGH', 'urgent', '', null), fc.anything()), (priority) => {
        const valid = (PRIORITIES as readonly unknown[]).includes(priority);
        const reason = 'must be one of high, normal, low';
        const create = problemsOf(() => parseCreateJobRequest({ target, schedule: once, priority }, NOW));
        const update = problemsOf(() => parseUpdateJob({ priority }, NOW));
        const workflow = problemsOf(() => parseCreateWorkflow({ tasks: [{ key: 'a', target, priority }] }, NOW));
        if (valid) {
          expect([create, update, workflow]).toEqual([undefined, undefined, undefined]);
        } else if (priority === undefined) {
          // Absent: the default on create and for a task; a PATCH of nothing names the body.
          expect(create).toBeUndefined();
          expect(workflow).toBeUndefined();
        } else {
          expect(create).toEqual([{ field: 'priority', reason }]);
          expect(update).toEqual([{ field: 'priority', reason }]);
          expect(workflow).toEqual([{ field: 'tasks.0.priority', reason }]);
        }
      }),
    );
  });

  it('shows the lane of a job and a run, normal when none is stored', async () => {
    const { create, runs } = setup();
    const high = await create({ schedule: once, priority: 'high' });
    const plain = await create({ schedule: once });
    expect(jobView(high).priority).toBe('high');
    expect(jobView(plain).priority).toBe('normal');
    const [highRun] = runs.all().filter((run) => run.jobId === high.jobId);
    const [plainRun] = runs.all().filter((run) => run.jobId === plain.jobId);
    expect(highRun?.priority).toBe('high');
    expect(plainRun && 'priority' in plainRun).toBe(false);
    expect(highRun && runView(highRun).priority).toBe('high');
    expect(plainRun && runView(plainRun).priority).toBe('normal');
  });
});

describe('the lane of a run’s message', () => {
  it('names the run’s lane, and no lane for normal (as before lanes)', () => {
    const run = { tenantId: TENANT, jobId: 'j', scheduledFor: NOW, attempt: 2, runId: 'j_1_2' };
    expect(dispatchRequestOf({ ...run, priority: 'low' }, NOW).message).toEqual({ ...run, priority: 'low' });
    expect(dispatchRequestOf({ ...run, priority: 'normal' }, NOW).message).toEqual(run);
    expect(dispatchRequestOf(run, NOW).message).toEqual(run);
  });

  it('is the job’s lane for runs the scanner makes from the due index', async () => {
    const { deps, create, dispatcher, runsOf } = setup();
    const job = await create({ ...every(60, NOW + 3_600_000), priority: 'high' });
    expect(dispatcher.sent).toEqual([]);

    await scanDueJobs(deps, NOW + 3_600_000);

    // The scan's horizon reaches two occurrences: both in the job's lane.
    expect(runsOf(job.jobId).map((run) => run.priority)).toEqual(['high', 'high']);
    expect(dispatcher.sent.map(({ message }) => message.priority)).toEqual(['high', 'high']);
  });

  it('follows a PATCH for the runs made after it; runs already made keep theirs', async () => {
    const { deps, create, dispatcher, runsOf } = setup();
    // Due now: the runs within the horizon (0 s and 60 s) are made at creation, in the job's lane then.
    const job = await create({ ...every(60, NOW), priority: 'low' });
    const patched = await updateJob(
      deps,
      TENANT,
      job.jobId,
      parseUpdateJob({ priority: 'high' }, NOW),
      definitionVersionOf(job),
      NOW,
    );
    expect(jobView(patched).priority).toBe('high');

    await scanDueJobs(deps, NOW + 60_000);

    expect(runsOf(job.jobId).map((run) => [run.scheduledFor - NOW, run.priority])).toEqual([
      [0, 'low'],
      [60_000, 'low'],
      [120_000, 'high'],
    ]);
    expect(dispatcher.sent.map(({ message }) => message.priority)).toEqual(['low', 'low', 'high']);

    // Back to normal: stored as no lane again.
    const normal = await updateJob(
      deps,
      TENANT,
      job.jobId,
      parseUpdateJob({ priority: 'normal' }, NOW),
      definitionVersionOf(patched),
      NOW,
    );
    expect('priority' in normal).toBe(false);
    expect(jobView(normal).priority).toBe('normal');
  });

  it('is the dead-lettered attempt’s for its re-drive', async () => {
    const { deps, create, dispatcher, runs } = setup();
    const job = await create({ schedule: once, priority: 'low' });
    const [run] = runs.all().filter((r) => r.jobId === job.jobId);
    if (!run) throw new Error('no run made at creation');
    expect(await runs.deadLetter(run, 'poison', NOW + 1)).toBe(true);

    const next = await redriveRun(deps, TENANT, run.runId, NOW + 2);

    expect(next).toMatchObject({ attempt: 2, priority: 'low' });
    expect(dispatcher.sent.at(-1)?.message).toMatchObject({ runId: next.runId, priority: 'low' });
  });

  it('is each workflow task’s own, kept in the graph its workflow runs start with', () => {
    const fields = parseCreateWorkflow(
      {
        tasks: [
          { key: 'a', target, priority: 'high' },
          { key: 'b', target, dependsOn: ['a'] },
        ],
      },
      NOW,
    );
    const { items, graph } = taskItemsOf(TENANT, 'wf1', 1, fields.tasks, NOW);
    expect(graph.map((entry) => entry.priority)).toEqual(['high', undefined]);
    expect(items.map((item) => item.priority)).toEqual(['high', undefined]);
    const head = {
      jobId: 'wf1',
      status: 'ACTIVE',
      policies: fields.policies,
      graph,
      version: 1,
      definitionVersion: 1,
      createdAt: NOW,
      updatedAt: NOW,
    } as unknown as Parameters<typeof workflowView>[0];
    expect(workflowView(head, items).tasks.map((task) => task.priority)).toEqual(['high', 'normal']);
  });

  it('starts each workflow task’s runs in the task’s lane', async () => {
    const fields = parseCreateWorkflow(
      {
        tasks: [
          { key: 'urgent', target, priority: 'high' },
          { key: 'bulk', target, priority: 'low' },
          { key: 'plain', target },
        ],
      },
      NOW,
    );
    const { items, graph } = taskItemsOf(TENANT, 'wf01JWFLANES0000000000000000', 1, fields.tasks, NOW);
    const head = {
      tenantId: TENANT,
      jobId: 'wf01JWFLANES0000000000000000',
      kind: 'workflow',
      policies: fields.policies,
      status: 'ACTIVE',
      version: 1,
      definitionVersion: 1,
      graph,
      retry: { maxAttempts: 1, initialDelaySeconds: 1, maxDelaySeconds: 1, multiplier: 1 },
      delivery: 'at-least-once',
      timeoutSeconds: 30,
      createdAt: NOW,
      updatedAt: NOW,
      occurrenceCount: 0,
    } satisfies WorkflowHead;
    const jobs = new InMemoryJobRepository();
    for (const item of items) await jobs.create(item);
    const runs = new InMemoryRunRepository();
    const dispatcher = new RecordingDispatcher();
    const deps = {
      workflowRuns: new InMemoryWorkflowRunStore(),
      runs,
      jobs,
      dispatcher,
      config: { retentionDays: 30 },
    };

    await startWorkflowRun(deps, newWorkflowRun(head, NOW, NOW, 30), NOW);

    const laneOfTask = new Map(runs.all().map((run) => [run.taskKey, run.priority]));
    expect(Object.fromEntries(laneOfTask)).toEqual({ urgent: 'high', bulk: 'low', plain: undefined });
    const sent = new Map(dispatcher.sent.map(({ message }) => [message.runId, message.priority]));
    for (const run of runs.all()) expect(sent.get(run.runId)).toBe(run.priority);
  });
});
