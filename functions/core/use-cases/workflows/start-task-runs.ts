/**
 * Creates the first attempt of each task a step started (workflow-step.ts) and sends it. Each run
 * is put before the workflow run that names it is written, with its own sweep-index entry, so a
 * writer that dies between the put and the send leaves it to the sweep, never QUEUED without a
 * message; racing writers compute the same run ids, and the conditional put keeps the first.
 *
 * A task with `input: "upstream"` carries its request body on the run (`requestBody`, at most
 * 256 KiB: upstream-input.ts): its own body and its dependencies' results, read from their runs.
 * A body that cannot be made ends the task FAILED (`invalid_target`) without a call.
 */
import type { Run } from '../../model.ts';
import { runKeyOfId } from '../../run-id.ts';
import { dispatchRequestOf, sendRuns } from '../../runs/send-runs.ts';
import type { WorkflowGraphEntry, WorkflowRun, WorkflowTaskState } from '../../workflows/stored.ts';
import { taskRunKeyOf } from '../../workflows/task-run-id.ts';
import { ownBodyValue, type UpstreamResult, upstreamBody } from '../../workflows/upstream-input.ts';
import { newRun } from '../new-run.ts';
import type { WorkflowRunDeps } from './workflow-run-deps.ts';

/** Tasks whose body could not be made: they end FAILED with the reason. */
export type UnstartableTasks = Map<string, string>;

/** Puts and sends the first attempts of `entries` (this round); returns the tasks that could not start. */
export async function startTaskRuns(
  deps: WorkflowRunDeps,
  run: WorkflowRun,
  entries: readonly WorkflowGraphEntry[],
  now: number,
): Promise<UnstartableTasks> {
  const unstartable: UnstartableTasks = new Map();
  const toSend: Run[] = [];
  await Promise.all(
    entries.map(async (entry) => {
      const body = entry.input === 'upstream' ? await upstreamRequestBody(deps, run, entry) : undefined;
      if (body !== undefined && !body.ok) {
        unstartable.set(entry.key, body.reason);
        return;
      }
      const key = taskRunKeyOf(run, entry.taskJobId, run.round, 1);
      const source = {
        tenantId: run.tenantId,
        jobId: entry.taskJobId,
        workflowRunId: run.workflowRunId,
        taskKey: entry.key,
        ...(body?.ok ? { requestBody: body.body } : {}),
        // The task's lane, from the graph this workflow run started with.
        ...(entry.priority === undefined ? {} : { priority: entry.priority }),
      };
      const task = newRun(source, key.scheduledFor, 1, now, deps.config.retentionDays);
      const created = await deps.runs.createIfAbsent(task);
      // Another writer created it: send it again only while it waits (a duplicate message is harmless).
      if (created.created) toSend.push(task);
      else if (created.existing.status === 'QUEUED') toSend.push(created.existing);
    }),
  );
  await sendRuns(
    deps.dispatcher,
    toSend.map((task) => dispatchRequestOf(task, now)),
  );
  return unstartable;
}

async function upstreamRequestBody(deps: WorkflowRunDeps, run: WorkflowRun, entry: WorkflowGraphEntry) {
  const item = await deps.jobs.get(run.tenantId, entry.taskJobId);
  if (!item) return { ok: false as const, reason: `the task's definition ${entry.taskJobId} is gone` };
  const upstream = await Promise.all(
    entry.dependsOn.map(async (key) => ({ key, result: await resultOf(deps, run, run.tasks[key]) })),
  );
  return upstreamBody(ownBodyValue(item.target), upstream);
}

/** What a dependency left: its status and HTTP status, and its run's output or response excerpt. */
async function resultOf(
  deps: WorkflowRunDeps,
  run: WorkflowRun,
  state: WorkflowTaskState | undefined,
): Promise<UpstreamResult> {
  const status = state?.status ?? 'PENDING';
  const key = runKeyOfId(run.tenantId, state?.runId);
  const taskRun = key ? await deps.runs.get(key) : undefined;
  const output = taskRun?.outputJson === undefined ? undefined : parseJson(taskRun.outputJson);
  return {
    status,
    ...(state?.httpStatus === undefined ? {} : { httpStatus: state.httpStatus }),
    ...(output === undefined ? {} : { output: output.value }),
    ...(output === undefined && taskRun?.responseExcerpt !== undefined
      ? { responseExcerpt: taskRun.responseExcerpt }
      : {}),
  };
}

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}
