/**
 * What Chronos stores for workflows, and why it is shaped so (docs/workflows.md has the whole
 * picture):
 *
 * - The **workflow head** is an item of the jobs table (`kind: 'workflow'`, `jobId` = the
 *   workflow id). A scheduled workflow sits in the due-index like a job, so the scanner
 *   materializes its occurrences unchanged: each occurrence is an ordinary run (a *starter run*)
 *   that the executor turns into a workflow run instead of an HTTP call. Misfire, pause, the
 *   sweep and leases apply to it as to any run.
 * - Each **task of each version** is a job-shaped item of the jobs table (`kind: 'workflow-task'`,
 *   id `<workflowId>v<version>t<index>`): task runs are ordinary runs of it, so the executor, the
 *   completion handler's retries, async callbacks, the runs API and the tenant's caps treat them
 *   as any run. A version's task items are never changed, so a workflow run keeps the version it
 *   started with. Neither kind has a ULID id, so no job route can reach them, and the job listing
 *   leaves them out.
 * - A **workflow run** is an item of the workflow-runs table: the graph it started with and the
 *   state of each task, replaced as a whole under a revision (optimistic concurrency), so two
 *   task ends decided at the same instant are applied one after the other.
 */
import type { Delivery, ErrorType, Job, JobPolicies, JobStatus } from '../model.ts';
import type { Priority } from '../priority.ts';
import type { RetryPolicy } from '../retry-policy.ts';
import type { ScheduleSpec } from '../schedule/index.ts';
import type { TaskInputMode, TaskStatus, TriggerRule } from './model.ts';
import type { WorkflowRunStatus } from './workflow-run-status.ts';

export const WORKFLOW_KIND = 'workflow';
export const WORKFLOW_TASK_KIND = 'workflow-task';

/** A jobs-table item (any kind) that is a workflow head. */
export function isWorkflowHead<T extends object>(item: T | undefined): item is T & WorkflowHead {
  return (item as { kind?: unknown } | undefined)?.kind === WORKFLOW_KIND;
}

/** A jobs-table item (any kind) that is a workflow task's item. */
export function isWorkflowTaskJob<T extends object>(item: T | undefined): item is T & WorkflowTaskJob {
  return (item as { kind?: unknown } | undefined)?.kind === WORKFLOW_TASK_KIND;
}

/** One task of a version as the graph rules and the workflow run need it, with the item holding its call. */
export interface WorkflowGraphEntry {
  key: string;
  dependsOn: string[];
  when: TriggerRule;
  input?: TaskInputMode;
  /** The task's job item for this version (workflow-ids.ts taskJobIdOf). */
  taskJobId: string;
  /**
   * The task's lane (absent: `normal`), as its item has it: the workflow run keeps the graph it
   * started with, so its task runs are made in their lane without reading the items.
   */
  priority?: Priority;
}

/**
 * The workflow head. Where the scanner and the executor read it, it is a job: `version` is the
 * internal write counter the scanner's conditional advance uses, `definitionVersion` the
 * workflow's version as the API shows it (bumped by PATCH only, the ETag). `retry`, `delivery`
 * and `timeoutSeconds` are the starter run's own (the executor reads them for any run).
 */
export interface WorkflowHead {
  tenantId: string;
  /** The workflow id (workflow-ids.ts). */
  jobId: string;
  kind: typeof WORKFLOW_KIND;
  name?: string;
  /** Absent: the workflow runs only when triggered, and is never in the due-index. */
  schedule?: ScheduleSpec;
  policies: JobPolicies;
  onFailureUrl?: string;
  status: JobStatus;
  version: number;
  definitionVersion: number;
  /** The current version's tasks, in definition order. */
  graph: WorkflowGraphEntry[];
  retry: RetryPolicy;
  delivery: Delivery;
  timeoutSeconds: number;
  createdAt: number;
  updatedAt: number;
  nextFireAt?: number;
  dueShard?: string;
  occurrenceCount: number;
}

/**
 * One task of one version, as a job. Its `schedule` is inert (task runs are started by the
 * workflow, never by the scanner; the executor and the completion handler decide task runs by
 * their `workflowRunId`, not by the schedule).
 */
export interface WorkflowTaskJob extends Job {
  kind: typeof WORKFLOW_TASK_KIND;
  workflowId: string;
  workflowVersion: number;
  taskKey: string;
}

/** Where one task of a workflow run stands, as the run item keeps it. */
export interface WorkflowTaskState {
  /** QUEUED from the moment its run exists (also while a retry of it waits) until it ends. */
  status: TaskStatus;
  /** The task's current (latest) run attempt. */
  runId?: string;
  attempt?: number;
  startedAt?: number;
  completedAt?: number;
  httpStatus?: number;
  errorType?: ErrorType;
  /** Why the task ended without a call (SKIPPED by its rule, CANCELLED with its workflow run). */
  skippedReason?: string;
}

/** One execution of a workflow. */
export interface WorkflowRun {
  tenantId: string;
  workflowId: string;
  /** `<workflowId>_<scheduledFor>` (task-run-id.ts workflowRunIdOf). */
  workflowRunId: string;
  scheduledFor: number;
  /** The workflow version it runs, whatever PATCH did since. */
  version: number;
  graph: WorkflowGraphEntry[];
  name?: string;
  onFailureUrl?: string;
  status: WorkflowRunStatus;
  /** 0, then one more per POST /v1/workflow-runs/{id}/retry. */
  round: number;
  /** By task key; a task missing here is PENDING. */
  tasks: Record<string, WorkflowTaskState>;
  /** Bumped by every write: the condition of the next. */
  revision: number;
  startedAt: number;
  completedAt?: number;
  cancelRequestedAt?: number;
  /** Started by POST /v1/workflows/{id}/trigger, not by the schedule. */
  triggered?: boolean;
  /** The trigger's Idempotency-Key, when it had one. */
  triggerKey?: string;
  /** It took its workflow's `overlap: "forbid"` marker, which its end gives back. */
  holdsInFlight?: boolean;
  /** Epoch seconds: TTL, the runs' retention. */
  expiresAt: number;
}

/** What a task run carries beyond an ordinary run (model.ts Run has these fields). */
export interface TaskRunMarks {
  workflowRunId: string;
  taskKey: string;
  /** The request body of a task with `input: "upstream"`, computed when it started (upstream-input.ts). */
  requestBody?: string;
}
