/**
 * What the async use cases need from storage (core/use-cases/async/): the run items of async
 * attempts, read strongly consistent, and the conditional writes the decisions make
 * (apply-write.ts is their reference); the deadline index; and the callback token keys.
 */
import type { RunKey } from '../model.ts';
import type { AsyncRunRecord } from './apply-write.ts';
import type { AsyncRunWrite } from './async-run.ts';

/** A run as the async decisions read it, with the fields the answers show. */
export type StoredAsyncRun = Omit<AsyncRunRecord, 'errorType'> & {
  /** Any run's error type (model.ts), not only those an async end gives. */
  errorType?: string;
  runId: string;
  /** True when the run carries its job's `async` settings (copied at the claim): only those take callbacks. */
  isAsync: boolean;
};

export interface AsyncRunStore {
  /** The attempt's run item, read strongly consistent; undefined when there is none. */
  read(key: RunKey): Promise<StoredAsyncRun | undefined>;
  /** Every attempt of one occurrence the store holds (for the latest checkpoint). */
  occurrence(key: Omit<RunKey, 'attempt'>): Promise<StoredAsyncRun[]>;
  /** Makes `write` on the run, only while its condition holds; false when it did not (nothing written). */
  apply(key: RunKey, write: AsyncRunWrite): Promise<boolean>;
  /** Runs of one deadline-index shard whose earliest deadline is before `until`, oldest first. */
  pastDeadline(shard: string, until: number, limit: number): Promise<RunKey[]>;
}

/** The keys that seal and open callback tokens, newest first (callback-token.ts). */
export interface CallbackKeys {
  keys(): Promise<readonly string[]>;
}
