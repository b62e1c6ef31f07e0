/**
 * The workflow answers, as the typed client has them (generated from the OpenAPI document), and
 * the few parts the views name on their own.
 */
import type { Workflow, WorkflowRun, WorkflowRunSummary, WorkflowSummary } from '@chronos/client';

export type {
  Workflow,
  WorkflowListQuery,
  WorkflowPage,
  WorkflowRun,
  WorkflowRunPage,
  WorkflowSummary,
} from '@chronos/client';

export type WorkflowListItem = WorkflowSummary;
export type WorkflowRunListItem = WorkflowRunSummary;
export type WorkflowTask = Workflow['tasks'][number];
export type WorkflowRunTask = WorkflowRun['tasks'][number];
export type TaskStatus = WorkflowRunTask['status'];
export type TriggerRule = WorkflowRunTask['when'];
export type WorkflowStatus = Workflow['status'];
export type WorkflowRunStatus = WorkflowRun['status'];
