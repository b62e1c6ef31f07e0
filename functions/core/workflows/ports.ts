/**
 * The stores the workflow use cases need, implemented in functions/adapters/dynamodb/. Workflow
 * heads and task items are jobs-table items (stored.ts), read through WorkflowRepository; workflow
 * runs live in their own table.
 */
import type { Page } from '../ports.ts';
import type { WorkflowHead, WorkflowRun, WorkflowTaskJob } from './stored.ts';

export type WorkflowRunCreation = { created: true } | { created: false; existing: WorkflowRun };

export interface WorkflowRunStore {
  /** Puts the run unless one with its id exists (then returns that one): one run per occurrence. */
  create(run: WorkflowRun): Promise<WorkflowRunCreation>;
  /** Strongly consistent. */
  get(tenantId: string, workflowRunId: string): Promise<WorkflowRun | undefined>;
  /** Writes `run` whole if the stored revision is still `expectedRevision`; false when another write came first. */
  replace(run: WorkflowRun, expectedRevision: number): Promise<boolean>;
  /** Newest first. */
  listByWorkflow(
    tenantId: string,
    workflowId: string,
    options: { limit: number; cursor?: string },
  ): Promise<Page<WorkflowRun>>;
}

export interface WorkflowListQuery {
  limit: number;
  cursor?: string;
}

/** Workflow heads and their versions' task items in the jobs table. */
export interface WorkflowRepository {
  /** Writes the version's task items, then the head (conditional: a head with its id throws JobExistsError). */
  create(head: WorkflowHead, tasks: WorkflowTaskJob[]): Promise<void>;
  /** Strongly consistent; undefined for a missing id and for any item that is not a workflow head. */
  get(tenantId: string, workflowId: string): Promise<WorkflowHead | undefined>;
  /** The task items with these ids (any order); missing ones are left out. */
  getTasks(tenantId: string, taskJobIds: readonly string[]): Promise<WorkflowTaskJob[]>;
  /** The tenant's workflow heads in creation order. */
  list(tenantId: string, query: WorkflowListQuery): Promise<Page<WorkflowHead>>;
  /**
   * Writes new task items (a new version), then replaces the head if its internal `version` is
   * still `expectedVersion`; false when another write came first (the task items stay, unused).
   */
  replace(head: WorkflowHead, newTasks: WorkflowTaskJob[], expectedVersion: number): Promise<boolean>;
}
