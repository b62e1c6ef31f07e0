/**
 * The task items of one workflow version and the graph the head keeps of them (core/workflows/
 * stored.ts): each task becomes a job-shaped item under `<workflowId>v<version>t<index>`, never
 * changed after it is written, so runs of that version keep calling what it said.
 */
import { DEFAULT_POLICIES } from '../../model.ts';
import type { ParsedTask } from '../../workflows/parse-workflow.ts';
import { WORKFLOW_TASK_KIND, type WorkflowGraphEntry, type WorkflowTaskJob } from '../../workflows/stored.ts';
import { taskJobIdOf } from '../../workflows/workflow-ids.ts';

/** A parsed task whose secret headers are sealed into its target (only such a task is stored). */
export type SealedTask = Omit<ParsedTask, 'secretHeaders'>;

/** The items of `version` and the graph naming them, in definition order. */
export function taskItemsOf(
  tenantId: string,
  workflowId: string,
  version: number,
  tasks: readonly SealedTask[],
  now: number,
): { items: WorkflowTaskJob[]; graph: WorkflowGraphEntry[] } {
  const items: WorkflowTaskJob[] = [];
  const graph: WorkflowGraphEntry[] = [];
  tasks.forEach((task, index) => {
    const taskJobId = taskJobIdOf(workflowId, version, index);
    graph.push({
      key: task.key,
      dependsOn: [...task.dependsOn],
      when: task.when,
      ...(task.input === undefined ? {} : { input: task.input }),
      taskJobId,
      ...(task.priority === undefined ? {} : { priority: task.priority }),
    });
    items.push({
      tenantId,
      jobId: taskJobId,
      kind: WORKFLOW_TASK_KIND,
      workflowId,
      workflowVersion: version,
      taskKey: task.key,
      target: task.target,
      // Inert: task runs are started by their workflow run, never by the scanner (no nextFireAt).
      schedule: { type: 'once', at: now },
      policies: { ...DEFAULT_POLICIES },
      retry: task.retry,
      delivery: task.delivery,
      timeoutSeconds: task.timeoutSeconds,
      ...(task.async === undefined ? {} : { async: task.async }),
      ...(task.priority === undefined ? {} : { priority: task.priority }),
      ...(task.flowControl === undefined ? {} : { flowControl: task.flowControl }),
      status: 'ACTIVE',
      version: 1,
      definitionVersion: 1,
      createdAt: now,
      updatedAt: now,
      occurrenceCount: 0,
    });
  });
  return { items, graph };
}
