/** WorkflowRunStore in memory, with the DynamoDB store's conditions (absent on create, revision on replace). */
import type { Page } from '#core/ports';
import type { WorkflowRunCreation, WorkflowRunStore } from '#core/workflows/ports';
import type { WorkflowRun } from '#core/workflows/stored';

export class InMemoryWorkflowRunStore implements WorkflowRunStore {
  readonly items = new Map<string, WorkflowRun>();

  private key(tenantId: string, workflowRunId: string) {
    return `${tenantId}/${workflowRunId}`;
  }

  async create(run: WorkflowRun): Promise<WorkflowRunCreation> {
    const existing = this.items.get(this.key(run.tenantId, run.workflowRunId));
    if (existing) return { created: false, existing: structuredClone(existing) };
    this.items.set(this.key(run.tenantId, run.workflowRunId), structuredClone(run));
    return { created: true };
  }

  async get(tenantId: string, workflowRunId: string): Promise<WorkflowRun | undefined> {
    const run = this.items.get(this.key(tenantId, workflowRunId));
    return run === undefined ? undefined : structuredClone(run);
  }

  async replace(run: WorkflowRun, expectedRevision: number): Promise<boolean> {
    const stored = this.items.get(this.key(run.tenantId, run.workflowRunId));
    if (stored?.revision !== expectedRevision) return false;
    this.items.set(this.key(run.tenantId, run.workflowRunId), structuredClone(run));
    return true;
  }

  async listByWorkflow(tenantId: string, workflowId: string, options: { limit: number }): Promise<Page<WorkflowRun>> {
    const items = [...this.items.values()]
      .filter((run) => run.tenantId === tenantId && run.workflowId === workflowId)
      .sort((a, b) => b.scheduledFor - a.scheduledFor)
      .slice(0, options.limit);
    return { items };
  }
}
