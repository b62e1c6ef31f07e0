/** What the parts of the repository contract share: the repositories under test, fixtures and checks. */
import { expect } from 'vitest';
import { allShards } from '#core/due-shard';
import { ValidationError } from '#core/errors';
import type { Run, RunKey } from '#core/model';
import type { CreateKeyRepository, JobRepository, Lease, Page, RunRepository, StoredJob } from '#core/ports';
import type { RunSlots } from '#core/tenants/ports';
import { newRun } from '#core/use-cases/new-run';
import { jobFixture } from '../support/job-fixture.ts';

export interface ContractRepositories {
  jobs: JobRepository;
  runs: RunRepository;
  /** The executors' per-tenant in-flight slots (core/tenants/ports.ts). */
  slots: RunSlots;
  /** POST /v1/jobs Idempotency-Keys (core/ports.ts). */
  createKeys: CreateKeyRepository;
  /** Sweep-index partitions the run repository spreads runs over. */
  shardCount: number;
  stop?: () => Promise<void>;
}

/** 2026-06-01T12:00:00Z. */
export const NOW = Date.parse('2026-06-01T12:00:00Z');
/** The last 12-digit epoch ms (2001-09-09T01:46:39.999Z) and the first 13-digit one. */
export const LAST_12_DIGITS = 999_999_999_999;
export const FIRST_13_DIGITS = 1_000_000_000_000;
export const LATEST = Date.UTC(2199, 11, 31, 23, 59, 59, 999);

let sequence = 0;
/** A name no other test in the file uses, tables being shared. */
export const unique = (prefix: string) =>
  `${prefix}${Date.now().toString(36)}${(++sequence).toString(36).padStart(4, '0')}`;
/** Job ids sort like ULIDs: fixed width, in creation order. */
export const jobIdOf = (index: number) => `01J${String(index).padStart(23, '0')}`;

export function aJob(tenantId: string, jobId: string, overrides: Partial<StoredJob> = {}): StoredJob {
  return jobFixture(NOW, {
    tenantId,
    jobId,
    createdAt: NOW,
    updatedAt: NOW,
    occurrenceCount: 0,
    ...overrides,
  }) as StoredJob;
}

export function aRun(
  tenantId: string,
  jobId: string,
  scheduledFor: number,
  attempt = 1,
  overrides: Partial<Run> = {},
): Run {
  const { expiresAt: _ttl, ...run } = newRun(
    { tenantId, jobId, schedule: { type: 'interval' } },
    scheduledFor,
    attempt,
    NOW,
    7,
  );
  return { ...run, ...overrides };
}

export const keyOf = (run: RunKey): RunKey => ({
  tenantId: run.tenantId,
  jobId: run.jobId,
  scheduledFor: run.scheduledFor,
  attempt: run.attempt,
});
export const lease = (owner: string, expiresAt: number, now: number, takeOverExpired = true): Lease => ({
  owner,
  expiresAt,
  now,
  takeOverExpired,
});
export const label = (run: Pick<Run, 'scheduledFor' | 'attempt'>) => `${run.scheduledFor}/${run.attempt}`;

/** A run without the index attributes the adapter's items carry (no part of the domain, never read by the core). */
export function domainRun(run: Run | undefined): Run | undefined {
  if (!run) return undefined;
  const {
    sweepAt: _at,
    sweepShard: _shard,
    deadLetterTenant: _tenant,
    ...domain
  } = run as Run & Record<string, unknown>;
  return domain as Run;
}

/** Follows cursors from the first page to the last, checking each page against `limit`. */
export async function readAllPages<T>(read: (cursor?: string) => Promise<Page<T>>, limit: number): Promise<T[][]> {
  const pages: T[][] = [];
  let cursor: string | undefined;
  do {
    const page = await read(cursor);
    expect(page.items.length).toBeLessThanOrEqual(limit);
    pages.push(page.items);
    cursor = page.cursor;
    // A listing that never ends is a defect too: far more pages than items means the cursor loops.
    expect(pages.length).toBeLessThan(100);
  } while (cursor !== undefined);
  return pages;
}

export async function expectCursorRefused(read: Promise<unknown>) {
  const error = await read.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ValidationError);
  expect((error as ValidationError).details.map((detail) => detail.field)).toEqual(['cursor']);
}

/** Every run of `tenantId` the sweep index holds at or before `until`, shard by shard, each shard earliest first. */
export async function sweepableRuns({ runs, shardCount }: ContractRepositories, tenantId: string, until: number) {
  const found: Array<Run & { sweepAt: number }> = [];
  for (const shard of allShards(shardCount)) {
    const inShard = await runs.findSweepable(shard, until, 1000);
    const sweepAts = inShard.map((run) => run.sweepAt);
    expect(sweepAts).toEqual([...sweepAts].sort((a, b) => a - b));
    found.push(...inShard.filter((run) => run.tenantId === tenantId));
  }
  return found;
}
