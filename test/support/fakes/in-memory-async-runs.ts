/**
 * The async run store (core/async/ports.ts) over the in-memory runs: the same items the run
 * repository fake holds, written by core/async/apply-write.ts's rule (the reference the DynamoDB
 * store follows), so a unit test sees the executor's claim and the async writes on one run.
 */
import { asyncStateOf } from '#adapters/dynamodb/async-run-store';
import { holdsCondition } from '#core/async/apply-write';
import type { AsyncRunWrite } from '#core/async/async-run';
import type { AsyncRunStore, StoredAsyncRun } from '#core/async/ports';
import type { RunKey } from '#core/model';
import { isTerminal } from '#core/run-state';
import type { InMemoryRunRepository } from './in-memory-runs.ts';

export class InMemoryAsyncRunStore implements AsyncRunStore {
  /** Writes made, in order (what a test may count). */
  readonly writes: AsyncRunWrite[] = [];

  constructor(private readonly runs: InMemoryRunRepository) {}

  private find(key: RunKey) {
    return this.runs
      .all()
      .find(
        (run) =>
          run.tenantId === key.tenantId &&
          run.jobId === key.jobId &&
          run.scheduledFor === key.scheduledFor &&
          run.attempt === key.attempt,
      );
  }

  async read(key: RunKey): Promise<StoredAsyncRun | undefined> {
    const run = this.find(key);
    return run ? asyncStateOf(structuredClone(run)) : undefined;
  }

  async occurrence(key: Omit<RunKey, 'attempt'>): Promise<StoredAsyncRun[]> {
    return this.runs
      .all()
      .filter(
        (run) => run.tenantId === key.tenantId && run.jobId === key.jobId && run.scheduledFor === key.scheduledFor,
      )
      .map((run) => asyncStateOf(structuredClone(run)));
  }

  async apply(key: RunKey, write: AsyncRunWrite): Promise<boolean> {
    const run = this.find(key);
    if (!run || !holdsCondition(asyncStateOf(run), write)) return false;
    this.writes.push(write);
    Object.assign(run, write.set);
    for (const field of write.remove) delete run[field];
    if (write.set.status !== undefined && isTerminal(write.set.status)) delete run.sweepAt;
    return true;
  }

  async pastDeadline(shard: string, until: number, limit: number): Promise<RunKey[]> {
    return this.runs
      .all()
      .filter((run) => run.deadlineShard === shard && run.deadlineAt !== undefined && run.deadlineAt < until)
      .sort((a, b) => (a.deadlineAt ?? 0) - (b.deadlineAt ?? 0))
      .slice(0, limit)
      .map(({ tenantId, jobId, scheduledFor, attempt }) => ({ tenantId, jobId, scheduledFor, attempt }));
  }
}
