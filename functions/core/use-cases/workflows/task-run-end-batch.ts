/**
 * The task-run ends of one completion batch, applied per workflow run: a wide fan-in's parents
 * end together and arrive in the same batch, whose records are processed at once. Applied one by
 * one they would race for the same workflow run item (each a strong read and a whole-item write
 * under its revision; the losers read and write again), so a 100-task run's ends cost about
 * fifteen tries each. Here the ends of one workflow run wait for the change in progress and then
 * go together in the next one: at most one change per workflow run at a time in this batch, and
 * as many ends in each as have arrived. Each end's promise settles with the change that carried
 * it, so a record fails (and is redelivered) exactly when its end was not applied.
 */
import type { WorkflowRun } from '../../workflows/stored.ts';
import { type EndedTaskRun, recordTaskRunEnds } from './task-run-ended.ts';
import type { WorkflowRunDeps } from './workflow-run-deps.ts';

interface Waiting {
  ended: EndedTaskRun;
  settle: { resolve: (run: WorkflowRun | undefined) => void; reject: (error: unknown) => void };
}

export class TaskRunEndBatch {
  private readonly waiting = new Map<string, Waiting[]>();
  private readonly applying = new Set<string>();

  constructor(
    private readonly deps: WorkflowRunDeps,
    private readonly now: () => number,
  ) {}

  /** Applies `ended` with the other ends of its workflow run that arrive meanwhile. */
  record(ended: EndedTaskRun): Promise<WorkflowRun | undefined> {
    const key = `${ended.tenantId}/${ended.workflowRunId}`;
    return new Promise((resolve, reject) => {
      const list = this.waiting.get(key) ?? [];
      list.push({ ended, settle: { resolve, reject } });
      this.waiting.set(key, list);
      if (!this.applying.has(key)) void this.drain(key);
    });
  }

  private async drain(key: string): Promise<void> {
    this.applying.add(key);
    // Let the records started together reach here before the first change is made.
    await Promise.resolve();
    try {
      for (let batch = this.take(key); batch.length > 0; batch = this.take(key)) {
        try {
          const run = await recordTaskRunEnds(
            this.deps,
            batch.map((item) => item.ended),
            this.now(),
          );
          for (const item of batch) item.settle.resolve(run);
        } catch (error) {
          for (const item of batch) item.settle.reject(error);
        }
      }
    } finally {
      this.applying.delete(key);
    }
  }

  private take(key: string): Waiting[] {
    const batch = this.waiting.get(key) ?? [];
    this.waiting.delete(key);
    return batch;
  }
}
