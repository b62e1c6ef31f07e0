/**
 * What a decided write does to a run, as the conditional write the adapters make: nothing when the
 * run is no longer in the write's condition (status, revision, and the lease owner when named),
 * otherwise the run with `set` applied and `remove` removed. The reference for the DynamoDB
 * adapter's UpdateExpression and ConditionExpression, and what in-memory fakes and property tests
 * apply.
 */
import type { AsyncRunChanges, AsyncRunState, AsyncRunWrite } from './async-run.ts';

/** A run item as far as async runs go: the state decisions read, and every attribute they write. */
export type AsyncRunRecord = AsyncRunState & Omit<Partial<AsyncRunChanges>, 'status'>;

/** True when `run` is still in the state `write` was decided on. */
export function holdsCondition(run: AsyncRunState, write: AsyncRunWrite): boolean {
  const { status, revision, leaseOwner } = write.condition;
  return (
    run.status === status && run.revision === revision && (leaseOwner === undefined || run.leaseOwner === leaseOwner)
  );
}

/** `run` after `write`, or undefined when its condition does not hold (the write is refused, nothing changes). */
export function applyAsyncWrite<T extends AsyncRunRecord>(run: T, write: AsyncRunWrite): T | undefined {
  if (!holdsCondition(run, write)) return undefined;
  const next: T = { ...run, ...write.set, revision: write.set.asyncRevision };
  for (const name of write.remove) delete next[name];
  return next;
}
