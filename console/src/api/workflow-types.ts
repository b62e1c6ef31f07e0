/**
 * The workflow answers as docs/workflows-contract (issue #21) states them. Local types: the
 * workflow routes are not yet in the OpenAPI document the client is generated from; once they
 * are, these become aliases of `components['schemas'][…]` (see workflow-http.ts).
 */
import type { Job } from '@chronos/client';

export type WorkflowStatus = 'ACTIVE' | 'PAUSED' | 'COMPLETED' | 'CANCELLED';
export type WorkflowRunStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';
export type TaskStatus =
  | 'PENDING'
  | 'QUEUED'
  | 'RUNNING'
  | 'SUCCEEDED'
  | 'FAILED'
  | 'TIMED_OUT'
  | 'DEAD_LETTERED'
  | 'SKIPPED'
  | 'CANCELLED';
export type TriggerRule = 'all_succeeded' | 'all_done' | 'any_failed';

export interface WorkflowTask {
  key: string;
  dependsOn: string[];
  when: TriggerRule;
  input: 'upstream' | null;
  /** Redacted as a job's: secret header values only as `***`. */
  target: Job['target'];
  retry: Job['retry'];
  timeoutSeconds: number;
  delivery: Job['delivery'];
  async: Job['async'];
}

/** Shared by the listing's items and the full workflow. */
export interface WorkflowSummary {
  workflowId: string;
  name: string | null;
  status: WorkflowStatus;
  version: number;
  /** As a job's schedule view; null: runs only when triggered. */
  schedule: Job['schedule'] | null;
  misfire: Job['misfire'];
  overlap: Job['overlap'];
  onFailure: { url: string } | null;
  nextFireAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Workflow extends WorkflowSummary {
  tasks: WorkflowTask[];
}

export interface WorkflowListItem extends WorkflowSummary {
  taskCount: number;
}

export interface WorkflowPage {
  items: WorkflowListItem[];
  cursor?: string | null;
}

export interface WorkflowListQuery {
  limit?: number;
  cursor?: string;
}

export interface WorkflowRunTask {
  key: string;
  dependsOn: string[];
  when: TriggerRule;
  status: TaskStatus;
  runId: string | null;
  attempt: number | null;
  startedAt: string | null;
  completedAt: string | null;
  httpStatus: number | null;
  errorType: string | null;
  skippedReason: string | null;
}

interface WorkflowRunHead {
  workflowRunId: string;
  workflowId: string;
  name: string | null;
  status: WorkflowRunStatus;
  version: number;
  round: number;
  scheduledFor: string;
  startedAt: string;
  completedAt: string | null;
  cancelRequestedAt: string | null;
  triggered: boolean;
}

export interface WorkflowRun extends WorkflowRunHead {
  tasks: WorkflowRunTask[];
}

export interface WorkflowRunListItem extends WorkflowRunHead {
  /** Tasks by status, e.g. `{ "SUCCEEDED": 3, "SKIPPED": 1 }`. */
  taskCounts: Partial<Record<TaskStatus, number>>;
}

export interface WorkflowRunPage {
  items: WorkflowRunListItem[];
  cursor?: string | null;
}

export interface TriggeredWorkflow {
  workflowRunId: string;
}
export interface RetriedWorkflowRun {
  workflowRunId: string;
  round: number;
}
export interface CancelledWorkflowRun {
  workflowRunId: string;
  status: 'CANCELLED';
}
