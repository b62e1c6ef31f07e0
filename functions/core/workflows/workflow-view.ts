/**
 * A workflow as the API shows it (docs/workflows contract): the head's schedule and policies as a
 * job's, and each task of its current version with its job fields shown as a job's (secret header
 * values as "***", the retry policy at its effective values). The listing shows heads only, with
 * their task count instead of the tasks.
 */
import { definitionVersionOf } from '../definition-version.ts';
import { laneOf } from '../priority.ts';
import { redactedTarget } from '../secrets/secret-headers.ts';
import { asyncSettingsView, iso, retryView, scheduleView } from '../views.ts';
import type { WorkflowHead, WorkflowTaskJob } from './stored.ts';

/** The head's own fields, as both the workflow and the listing show them. */
function headView(head: WorkflowHead) {
  return {
    workflowId: head.jobId,
    name: head.name ?? null,
    status: head.status,
    // The definition version (PATCH, pause, resume, delete bump it), never the internal write counter.
    version: definitionVersionOf(head),
    schedule: head.schedule ? scheduleView(head.schedule) : null,
    misfire: head.policies.misfire,
    overlap: head.policies.overlap,
    onFailure: head.onFailureUrl ? { url: head.onFailureUrl } : null,
    nextFireAt: iso(head.nextFireAt),
    createdAt: iso(head.createdAt),
    updatedAt: iso(head.updatedAt),
  };
}

/**
 * The workflow with its current version's tasks in definition order; `items` are the task items
 * of that version (any order). A task whose item is missing (never expected: items are written
 * before the head that names them) is shown with its graph fields only, rather than failing the read.
 */
export function workflowView(head: WorkflowHead, items: readonly WorkflowTaskJob[]) {
  const byId = new Map(items.map((item) => [item.jobId, item]));
  return {
    ...headView(head),
    tasks: head.graph.map((entry) => {
      const item = byId.get(entry.taskJobId);
      return {
        key: entry.key,
        dependsOn: entry.dependsOn,
        when: entry.when,
        input: entry.input ?? null,
        // The graph keeps each task's lane, as its item does.
        priority: laneOf(entry),
        ...(item
          ? {
              target: redactedTarget(item.target),
              retry: retryView(item),
              timeoutSeconds: item.timeoutSeconds,
              delivery: item.delivery,
              async: asyncSettingsView(item),
              flowControl: item.flowControl ?? null,
            }
          : {}),
      };
    }),
  };
}

/** A workflow as GET /v1/workflows lists it: its head, and how many tasks its current version has. */
export function workflowSummaryView(head: WorkflowHead) {
  return { ...headView(head), taskCount: head.graph.length };
}
