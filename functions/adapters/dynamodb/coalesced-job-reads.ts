/**
 * The executor's job reads, coalesced: every `get` asked for in the same turn of the event loop
 * goes out in one BatchGetItem (up to 100 keys; the same key once). The records of an executor
 * batch read their jobs together, and so do the runs of a burst that wake at the same millisecond:
 * one SDK request instead of ten or a hundred, which is most of a read's CPU (request building,
 * signing, parsing).
 *
 * Eventually consistent, at half the read units of a strongly consistent read (0.5 per job of up
 * to 4 KB): a change written in the last moment before a run is picked up (a PATCH, a pause) may
 * not be seen by that run yet, as a change made while it waits for its call or during the call is
 * not (DynamoDB's replicas catch up within a second, usually milliseconds). A job the read does not
 * find is read again strongly consistent: a job written just before its run was sent — a run-now
 * create writes the job, then sends — is never taken for a missing one.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { JobRepository, StoredJob } from '#core/ports';
import { batchGetItems, KEYS_PER_BATCH_GET } from './batch-get.ts';
import { jobOfItem } from './job-item.ts';
import { JOBS_TABLE } from './table-definitions.ts';

const { partitionKey: PK, sortKey: SK } = JOBS_TABLE;

type Waiter = { resolve: (job: StoredJob | undefined) => void; reject: (error: unknown) => void };

export class CoalescedJobReads {
  #pending = new Map<string, { tenantId: string; jobId: string; waiters: Waiter[] }>();
  #scheduled = false;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  get(tenantId: string, jobId: string): Promise<StoredJob | undefined> {
    return new Promise((resolve, reject) => {
      const key = keyOf(tenantId, jobId);
      const entry = this.#pending.get(key) ?? { tenantId, jobId, waiters: [] };
      entry.waiters.push({ resolve, reject });
      this.#pending.set(key, entry);
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const entries = [...this.#pending.values()];
    this.#pending = new Map();
    for (let i = 0; i < entries.length; i += KEYS_PER_BATCH_GET)
      void this.#read(entries.slice(i, i + KEYS_PER_BATCH_GET));
  }

  async #read(entries: Array<{ tenantId: string; jobId: string; waiters: Waiter[] }>): Promise<void> {
    try {
      const keys = entries.map(({ tenantId, jobId }) => ({ [PK]: tenantId, [SK]: jobId }));
      const found = itemsByKey(await batchGetItems(this.client, this.tableName, keys, false));
      const missed = keys.filter((key) => !found.has(keyOf(String(key[PK]), String(key[SK]))));
      if (missed.length > 0)
        for (const [key, job] of itemsByKey(await batchGetItems(this.client, this.tableName, missed, true)))
          found.set(key, job);
      for (const entry of entries) {
        const job = found.get(keyOf(entry.tenantId, entry.jobId));
        // Each waiter gets its own copy: a caller that changes its job must not change another's.
        for (const waiter of entry.waiters) waiter.resolve(job === undefined ? undefined : structuredClone(job));
      }
    } catch (error) {
      for (const entry of entries) for (const waiter of entry.waiters) waiter.reject(error);
    }
  }
}

/**
 * A job repository whose `get` is coalesced; every other method is the repository's own (its
 * prototype is the repository, so `this` inside them still reaches the repository's client).
 */
export function withCoalescedGets<T extends JobRepository>(jobs: T, reads: CoalescedJobReads): T {
  const coalesced = Object.create(jobs) as T;
  coalesced.get = (tenantId: string, jobId: string) => reads.get(tenantId, jobId);
  return coalesced;
}

function itemsByKey(items: Record<string, unknown>[]): Map<string, StoredJob> {
  return new Map(items.map((item) => [keyOf(String(item[PK]), String(item[SK])), jobOfItem<StoredJob>(item)]));
}

function keyOf(tenantId: string, jobId: string): string {
  return `${tenantId}\u0000${jobId}`;
}
