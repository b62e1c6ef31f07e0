/** Human renderings of workflows and workflow runs: a record's fields, then its tasks as a table. */
import type { Workflow, WorkflowRun, WorkflowRunSummary, WorkflowSummary } from '../../client/src/index.ts';
import { formatFields, formatTable } from './table.ts';
import { localTime } from './time.ts';
import { scheduleText } from './views.ts';

/** `trigger only` for a workflow without a schedule (it runs when triggered, never by itself). */
const workflowSchedule = (schedule: Workflow['schedule']) => (schedule ? scheduleText(schedule) : 'trigger only');

export function workflowsTable(workflows: readonly WorkflowSummary[]): string {
  if (workflows.length === 0) return 'No workflows.';
  return formatTable(
    ['ID', 'NAME', 'STATUS', 'VERSION', 'TASKS', 'SCHEDULE', 'NEXT'],
    workflows.map((w) => [
      w.workflowId,
      w.name,
      w.status,
      w.version,
      w.taskCount,
      workflowSchedule(w.schedule),
      localTime(w.nextFireAt),
    ]),
  );
}

/**
 * A workflow and its tasks in definition order: what each waits for (`after`), under which rule,
 * and what it calls — the graph as lines a terminal can show.
 */
export function workflowView(workflow: Workflow): string {
  const fields = formatFields([
    ['ID', workflow.workflowId],
    ['Name', workflow.name],
    ['Status', workflow.status],
    ['Version', workflow.version],
    ['Schedule', workflowSchedule(workflow.schedule)],
    ['Next', localTime(workflow.nextFireAt)],
    ['Misfire', workflow.misfire],
    ['Overlap', workflow.overlap],
    ['On failure', workflow.onFailure?.url],
    ['Created', localTime(workflow.createdAt)],
    ['Updated', localTime(workflow.updatedAt)],
  ]);
  const tasks = formatTable(
    ['TASK', 'AFTER', 'WHEN', 'TARGET', 'INPUT', 'ATTEMPTS', 'TIMEOUT'],
    workflow.tasks.map((task) => [
      task.key,
      task.dependsOn.length === 0 ? '(start)' : task.dependsOn.join(', '),
      task.dependsOn.length === 0 ? '' : task.when,
      `${task.target.method} ${task.target.url}`,
      task.input,
      task.retry.maxAttempts,
      `${task.timeoutSeconds} s${task.async ? ' async' : ''}`,
    ]),
  );
  return `${fields}\n\n${tasks}`;
}

/** `SUCCEEDED 3, SKIPPED 1`: how many tasks stand at each status. */
const countsText = (counts: WorkflowRunSummary['taskCounts']) =>
  Object.entries(counts)
    .filter(([, n]) => (n ?? 0) > 0)
    .map(([status, n]) => `${status} ${n}`)
    .join(', ');

export function workflowRunsTable(runs: readonly WorkflowRunSummary[]): string {
  if (runs.length === 0) return 'No workflow runs.';
  return formatTable(
    ['WORKFLOW RUN', 'SCHEDULED', 'STATUS', 'VERSION', 'ROUND', 'BY', 'COMPLETED', 'TASKS'],
    runs.map((run) => [
      run.workflowRunId,
      localTime(run.scheduledFor),
      run.status,
      run.version,
      run.round,
      run.triggered ? 'trigger' : 'schedule',
      localTime(run.completedAt),
      countsText(run.taskCounts),
    ]),
  );
}

/** The tasks of a workflow run: each one's state, its current attempt and why it ended as it did. */
export function workflowRunTasksTable(run: WorkflowRun): string {
  return formatTable(
    ['TASK', 'STATUS', 'ATTEMPT', 'HTTP', 'ERROR', 'SKIPPED REASON'],
    run.tasks.map((task) => [task.key, task.status, task.attempt, task.httpStatus, task.errorType, task.skippedReason]),
  );
}

export function workflowRunView(run: WorkflowRun): string {
  const fields = formatFields([
    ['Workflow run', run.workflowRunId],
    ['Workflow', `${run.workflowId}${run.name ? ` (${run.name})` : ''}`],
    ['Status', run.status],
    ['Version', run.version],
    ['Round', run.round],
    ['Started by', run.triggered ? 'trigger' : 'schedule'],
    ['Scheduled', localTime(run.scheduledFor)],
    ['Started', localTime(run.startedAt)],
    ['Completed', localTime(run.completedAt)],
    ['Cancel asked', run.cancelRequestedAt ? localTime(run.cancelRequestedAt) : undefined],
  ]);
  return `${fields}\n\n${workflowRunTasksTable(run)}`;
}
