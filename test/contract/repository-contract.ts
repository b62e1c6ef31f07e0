/**
 * One contract for the job and run repositories, run against the in-memory fakes and against the
 * DynamoDB adapters on DynamoDB Local (test/integration/repository-contract.test.ts). The fakes
 * compare numbers and may page by anything; DynamoDB compares 13-digit string sort keys, pages by
 * base64 LastEvaluatedKey cursors and decides every write by a condition: the contract pins the
 * behaviour the core relies on where those two can drift apart — boundaries at equal
 * milliseconds, the change from 12- to 13-digit epoch ms on 2001-09-09, pages that neither skip
 * nor repeat, cursors refused as a ValidationError, and every conditional write.
 *
 * Each test uses its own tenant, job and shard names, so one table serves the whole file.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allShards } from '#core/due-shard';
import { OutcomeRejectedError, ValidationError } from '#core/errors';
import type { Run, RunKey } from '#core/model';
import type { JobRepository, Lease, Page, RunRepository, StoredJob } from '#core/ports';
import { DEFAULT_SWEEP_GRACE_MS } from '#core/runs/send-runs';
import type { RunSlots } from '#core/tenants/ports';
import { newRun } from '#core/use-cases/new-run';
import { jobFixture } from '../support/job-fixture.ts';
import { storedInstant } from '../unit/properties/arbitraries.ts';

export interface ContractRepositories {
  jobs: JobRepository;
  runs: RunRepository;
  /** The executors' per-tenant in-flight slots (core/tenants/ports.ts). */
  slots: RunSlots;
  /** Sweep-index partitions the run repository spreads runs over. */
  shardCount: number;
  stop?: () => Promise<void>;
}

/** 2026-06-01T12:00:00Z. */
const NOW = Date.parse('2026-06-01T12:00:00Z');
/** The last 12-digit epoch ms (2001-09-09T01:46:39.999Z) and the first 13-digit one. */
const LAST_12_DIGITS = 999_999_999_999;
const FIRST_13_DIGITS = 1_000_000_000_000;
const LATEST = Date.UTC(2199, 11, 31, 23, 59, 59, 999);

let sequence = 0;
/** A name no other test in the file uses, tables being shared. */
const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${(++sequence).toString(36).padStart(4, '0')}`;
/** Job ids sort like ULIDs: fixed width, in creation order. */
const jobIdOf = (index: number) => `01J${String(index).padStart(23, '0')}`;

function aJob(tenantId: string, jobId: string, overrides: Partial<StoredJob> = {}): StoredJob {
  return jobFixture(NOW, {
    tenantId,
    jobId,
    createdAt: NOW,
    updatedAt: NOW,
    occurrenceCount: 0,
    ...overrides,
  }) as StoredJob;
}

function aRun(tenantId: string, jobId: string, scheduledFor: number, attempt = 1, overrides: Partial<Run> = {}): Run {
  const { expiresAt: _ttl, ...run } = newRun(
    { tenantId, jobId, schedule: { type: 'interval' } },
    scheduledFor,
    attempt,
    NOW,
    7,
  );
  return { ...run, ...overrides };
}

const keyOf = (run: RunKey): RunKey => ({
  tenantId: run.tenantId,
  jobId: run.jobId,
  scheduledFor: run.scheduledFor,
  attempt: run.attempt,
});
const lease = (owner: string, expiresAt: number, now: number, takeOverExpired = true): Lease => ({
  owner,
  expiresAt,
  now,
  takeOverExpired,
});
const label = (run: Pick<Run, 'scheduledFor' | 'attempt'>) => `${run.scheduledFor}/${run.attempt}`;

/** A run without the index attributes the adapter's items carry (no part of the domain, never read by the core). */
function domainRun(run: Run | undefined): Run | undefined {
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
async function readAllPages<T>(read: (cursor?: string) => Promise<Page<T>>, limit: number): Promise<T[][]> {
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

async function expectCursorRefused(read: Promise<unknown>) {
  const error = await read.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ValidationError);
  expect((error as ValidationError).details.map((detail) => detail.field)).toEqual(['cursor']);
}

export function describeRepositoryContract(name: string, makeRepositories: () => Promise<ContractRepositories>) {
  describe(`repository contract: ${name}`, () => {
    let jobs: JobRepository;
    let runs: RunRepository;
    let slots: RunSlots;
    let shardCount: number;
    let stop: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      ({ jobs, runs, slots, shardCount, stop } = await makeRepositories());
    });
    afterAll(() => stop?.());

    /** Every run of `tenantId` the sweep index holds at or before `until`, shard by shard. */
    async function sweepable(tenantId: string, until: number) {
      const found: Array<Run & { sweepAt: number }> = [];
      for (const shard of allShards(shardCount)) {
        const inShard = await runs.findSweepable(shard, until, 1000);
        const sweepAts = inShard.map((run) => run.sweepAt);
        expect(sweepAts).toEqual([...sweepAts].sort((a, b) => a - b));
        found.push(...inShard.filter((run) => run.tenantId === tenantId));
      }
      return found;
    }

    describe('jobs', () => {
      it('stores a job, reads it back only under its tenant, and refuses a second create of the same id', async () => {
        const tenant = unique('t');
        const job = aJob(tenant, jobIdOf(1), { nextFireAt: NOW, dueShard: unique('due#') });
        await jobs.create(job);
        expect(await jobs.get(tenant, job.jobId)).toEqual(job);
        expect(await jobs.get(`${tenant}x`, job.jobId)).toBeUndefined();
        await expect(jobs.create({ ...job, name: 'again' })).rejects.toThrow();
        expect((await jobs.get(tenant, job.jobId))?.name).toBeUndefined();
      });

      it('finds due jobs at or before `until` to the millisecond, earliest first, up to the limit', async () => {
        const tenant = unique('t');
        const shard = unique('due#');
        const at = [NOW + 1, NOW - 1, NOW, NOW + 1_000, NOW - 5_000];
        for (const [index, nextFireAt] of at.entries()) {
          await jobs.create(aJob(tenant, jobIdOf(index), { nextFireAt, dueShard: shard }));
        }
        await jobs.create(aJob(tenant, jobIdOf(9), { nextFireAt: NOW - 10_000, dueShard: unique('due#') }));

        const due = await jobs.findDue(shard, NOW, 10);
        expect(due.map((job) => job.nextFireAt)).toEqual([NOW - 5_000, NOW - 1, NOW]);
        expect(due[0]).toMatchObject({ tenantId: tenant, jobId: jobIdOf(4), version: 1, occurrenceCount: 0 });
        expect((await jobs.findDue(shard, NOW - 1, 10)).map((job) => job.nextFireAt)).toEqual([NOW - 5_000, NOW - 1]);
        expect((await jobs.findDue(shard, NOW + 1, 2)).map((job) => job.nextFireAt)).toEqual([NOW - 5_000, NOW - 1]);
        expect(await jobs.findDue(shard, NOW - 5_001, 10)).toEqual([]);
      });

      it('reads a due job from the index with only what the index projects', async () => {
        const shard = unique('due#');
        await jobs.create(aJob(unique('t'), jobIdOf(1), { nextFireAt: NOW, dueShard: shard, name: 'not projected' }));
        const [due] = await jobs.findDue(shard, NOW, 1);
        // The scanner must plan from these alone: a fake that handed over the whole job would hide a read of anything else.
        expect(Object.keys(due ?? {}).sort()).toEqual(
          [
            'dueShard',
            'jobId',
            'nextFireAt',
            'occurrenceCount',
            'policies',
            'schedule',
            'status',
            'tenantId',
            'version',
          ].sort(),
        );
      });

      it('orders and bounds due jobs the same across 2001-09-09, where epoch ms gain a digit, and at both ends', async () => {
        const tenant = unique('t');
        const shard = unique('due#');
        const at = [LATEST, FIRST_13_DIGITS + 1, LAST_12_DIGITS, 0, FIRST_13_DIGITS, 99_999_999_999];
        for (const [index, nextFireAt] of at.entries()) {
          await jobs.create(aJob(tenant, jobIdOf(index), { nextFireAt, dueShard: shard }));
        }
        const until = async (instant: number) => (await jobs.findDue(shard, instant, 10)).map((job) => job.nextFireAt);
        expect(await until(LAST_12_DIGITS)).toEqual([0, 99_999_999_999, LAST_12_DIGITS]);
        expect(await until(FIRST_13_DIGITS)).toEqual([0, 99_999_999_999, LAST_12_DIGITS, FIRST_13_DIGITS]);
        expect(await until(LATEST)).toEqual([
          0,
          99_999_999_999,
          LAST_12_DIGITS,
          FIRST_13_DIGITS,
          FIRST_13_DIGITS + 1,
          LATEST,
        ]);
        expect(await until(0)).toEqual([0]);
      });

      it('pages through a tenant’s jobs oldest first at every page size, without a skip or a repeat', async () => {
        const tenant = unique('t');
        // Created out of order; a tenant whose id extends this one's must never show up.
        for (const index of [3, 0, 6, 1, 5, 2, 4]) await jobs.create(aJob(tenant, jobIdOf(index)));
        await jobs.create(aJob(`${tenant}0`, jobIdOf(0)));
        await jobs.create(aJob(`${tenant}#`, jobIdOf(8)));
        const expected = [0, 1, 2, 3, 4, 5, 6].map(jobIdOf);
        for (let limit = 1; limit <= 8; limit++) {
          const pages = await readAllPages((cursor) => jobs.listByTenant(tenant, { limit, cursor }), limit);
          expect(pages.flat().map((job) => job.jobId)).toEqual(expected);
          // No page but the last is short when nothing is filtered.
          for (const page of pages.slice(0, -1)) expect(page).toHaveLength(limit);
        }
      });

      it('pages through filtered jobs without a skip or a repeat', async () => {
        const tenant = unique('t');
        for (let index = 0; index < 9; index++) {
          await jobs.create(
            aJob(tenant, jobIdOf(index), {
              name: index % 3 === 0 ? `report-${index}` : `other-${index}`,
              status: index % 2 === 0 ? 'ACTIVE' : 'PAUSED',
            }),
          );
        }
        for (let limit = 1; limit <= 4; limit++) {
          const reports = await readAllPages(
            (cursor) => jobs.listByTenant(tenant, { limit, cursor, name: 'report' }),
            limit,
          );
          expect(reports.flat().map((job) => job.name)).toEqual(['report-0', 'report-3', 'report-6']);
          const paused = await readAllPages(
            (cursor) => jobs.listByTenant(tenant, { limit, cursor, status: 'PAUSED' }),
            limit,
          );
          expect(paused.flat().map((job) => job.jobId)).toEqual([1, 3, 5, 7].map(jobIdOf));
        }
      });

      it('refuses a job cursor that is not one, or that belongs to another tenant, as a ValidationError', async () => {
        const tenant = unique('t');
        const other = unique('t');
        for (const index of [0, 1]) {
          await jobs.create(aJob(tenant, jobIdOf(index)));
          await jobs.create(aJob(other, jobIdOf(index)));
        }
        const foreign = (await jobs.listByTenant(other, { limit: 1 })).cursor as string;
        expect(foreign).toBeDefined();
        await expectCursorRefused(jobs.listByTenant(tenant, { limit: 1, cursor: foreign }));
        for (const garbage of ['1', 'not a cursor', `${tenant}/${jobIdOf(0)}`, 'e30', 'bnVsbA']) {
          await expectCursorRefused(jobs.listByTenant(tenant, { limit: 1, cursor: garbage }));
        }
      });

      it('replaces a job only at the expected version, and not over an in-flight marker taken since it was read', async () => {
        const tenant = unique('t');
        const job = aJob(tenant, jobIdOf(1), { nextFireAt: NOW, dueShard: unique('due#') });
        await jobs.create(job);
        const read = (await jobs.get(tenant, job.jobId)) as StoredJob;

        expect(await jobs.replace({ ...read, name: 'stale', version: 3 }, 2)).toBe(false);
        expect(await jobs.replace({ ...read, name: 'renamed', version: 2 }, 1)).toBe(true);
        expect(await jobs.get(tenant, job.jobId)).toMatchObject({ name: 'renamed', version: 2 });

        // An executor takes the marker after this read: writing the read job whole would drop it.
        const beforeMarker = (await jobs.get(tenant, job.jobId)) as StoredJob;
        const marker = { scheduledFor: NOW, runId: `${job.jobId}_${NOW}_1`, until: NOW + 60_000 };
        expect(await jobs.takeInFlight(tenant, job.jobId, marker, NOW)).toEqual({ taken: true });
        expect(await jobs.replace({ ...beforeMarker, name: 'drops marker', version: 3 }, 2)).toBe(false);
        expect(await jobs.takeInFlight(tenant, job.jobId, { ...marker, scheduledFor: NOW + 1 }, NOW)).toEqual({
          taken: false,
          holder: marker,
        });

        // Read with the marker, the write keeps it.
        const withMarker = (await jobs.get(tenant, job.jobId)) as StoredJob;
        expect(await jobs.replace({ ...withMarker, name: 'keeps marker', version: 3 }, 2)).toBe(true);
        expect(await jobs.takeInFlight(tenant, job.jobId, { ...marker, scheduledFor: NOW + 1 }, NOW)).toEqual({
          taken: false,
          holder: marker,
        });
        expect(await jobs.replace({ ...aJob(`${tenant}x`, job.jobId), version: 2 }, 1)).toBe(false);
        expect(await jobs.get(`${tenant}x`, job.jobId)).toBeUndefined();
      });

      it('advances a job only from its version, and drops it from the due-index when nothing more fires', async () => {
        const tenant = unique('t');
        const shard = unique('due#');
        const job = aJob(tenant, jobIdOf(1), {
          nextFireAt: NOW,
          dueShard: shard,
          schedule: { type: 'interval', everySeconds: 60, startAt: NOW },
        });
        await jobs.create(job);

        const move = { nextFireAt: NOW + 60_000, materialized: 1, now: NOW + 1 };
        expect(await jobs.advance({ ...job, version: 1 }, move)).toBe(true);
        expect(await jobs.advance({ ...job, version: 1 }, move)).toBe(false);
        expect(await jobs.advance({ ...job, jobId: jobIdOf(2), version: 1 }, move)).toBe(false);
        expect(await jobs.get(tenant, job.jobId)).toMatchObject({
          version: 2,
          occurrenceCount: 1,
          nextFireAt: NOW + 60_000,
          updatedAt: NOW + 1,
        });
        expect((await jobs.findDue(shard, NOW + 60_000, 10)).map((due) => due.nextFireAt)).toEqual([NOW + 60_000]);

        expect(await jobs.advance({ ...job, version: 2 }, { materialized: 2, now: NOW + 2 })).toBe(true);
        const done = await jobs.get(tenant, job.jobId);
        expect(done).toMatchObject({ version: 3, occurrenceCount: 3 });
        expect(done?.nextFireAt).toBeUndefined();
        expect(done?.dueShard).toBeUndefined();
        expect(await jobs.findDue(shard, LATEST, 10)).toEqual([]);
      });

      it('quarantines a job out of the due-index at its version, keeping where it stopped', async () => {
        const tenant = unique('t');
        const shard = unique('due#');
        const job = aJob(tenant, jobIdOf(1), { nextFireAt: NOW, dueShard: shard });
        await jobs.create(job);

        expect(await jobs.quarantine({ ...job, version: 7 }, 'bad', NOW + 1)).toBe(false);
        expect(await jobs.quarantine(job, 'cannot plan', NOW + 1)).toBe(true);
        expect(await jobs.quarantine(job, 'again', NOW + 2)).toBe(false);
        const stored = await jobs.get(tenant, job.jobId);
        expect(stored).toMatchObject({
          version: 2,
          nextFireAt: NOW,
          quarantine: { reason: 'cannot plan', at: NOW + 1 },
        });
        expect(stored?.dueShard).toBeUndefined();
        expect(await jobs.findDue(shard, LATEST, 10)).toEqual([]);
      });

      it('finishes a one-time job only while ACTIVE and still at that occurrence, and completes only exhausted recurring jobs', async () => {
        const tenant = unique('t');
        const shard = unique('due#');
        const once = aJob(tenant, jobIdOf(1), {
          schedule: { type: 'once', at: NOW },
          nextFireAt: NOW,
          dueShard: shard,
        });
        const recurring = aJob(tenant, jobIdOf(2), { schedule: { type: 'interval', everySeconds: 60, startAt: NOW } });
        const stillDue = aJob(tenant, jobIdOf(3), {
          schedule: { type: 'interval', everySeconds: 60, startAt: NOW },
          nextFireAt: NOW,
          dueShard: shard,
        });
        for (const job of [once, recurring, stillDue]) await jobs.create(job);

        expect(await jobs.finish(tenant, once.jobId, 'COMPLETED', NOW + 1, NOW - 1)).toBe(false);
        expect(await jobs.finish(tenant, recurring.jobId, 'COMPLETED', NOW + 1, NOW)).toBe(false);
        expect(await jobs.finish(tenant, jobIdOf(9), 'COMPLETED', NOW + 1, NOW)).toBe(false);
        expect(await jobs.finish(tenant, once.jobId, 'FAILED', NOW + 1, NOW)).toBe(true);
        expect(await jobs.finish(tenant, once.jobId, 'COMPLETED', NOW + 2, NOW)).toBe(false);
        const finished = await jobs.get(tenant, once.jobId);
        expect(finished).toMatchObject({ status: 'FAILED', version: 2, updatedAt: NOW + 1 });
        expect(finished?.nextFireAt).toBeUndefined();
        expect((await jobs.findDue(shard, LATEST, 10)).map((due) => due.jobId)).toEqual([stillDue.jobId]);

        expect(await jobs.completeExhausted(tenant, stillDue.jobId, NOW + 1)).toBe(false);
        expect(await jobs.completeExhausted(tenant, once.jobId, NOW + 1)).toBe(false);
        expect(await jobs.completeExhausted(tenant, jobIdOf(9), NOW + 1)).toBe(false);
        expect(await jobs.completeExhausted(tenant, recurring.jobId, NOW + 1)).toBe(true);
        expect(await jobs.completeExhausted(tenant, recurring.jobId, NOW + 2)).toBe(false);
        expect(await jobs.get(tenant, recurring.jobId)).toMatchObject({ status: 'COMPLETED', version: 2 });
        expect(await jobs.get(tenant, jobIdOf(9))).toBeUndefined();
      });

      it('holds the in-flight marker for one occurrence until it is released or its `until` has passed', async () => {
        const tenant = unique('t');
        const job = aJob(tenant, jobIdOf(1));
        await jobs.create(job);
        const first = { scheduledFor: NOW, runId: `${job.jobId}_${NOW}_1`, until: NOW + 30_000 };
        const second = { scheduledFor: NOW + 60_000, runId: `${job.jobId}_${NOW + 60_000}_1`, until: NOW + 90_000 };

        expect(await jobs.takeInFlight(tenant, jobIdOf(9), first, NOW)).toEqual({ taken: false });
        expect(await jobs.get(tenant, jobIdOf(9))).toBeUndefined();
        expect(await jobs.takeInFlight(tenant, job.jobId, first, NOW)).toEqual({ taken: true });
        // Another occurrence, up to and at `until` itself: held.
        expect(await jobs.takeInFlight(tenant, job.jobId, second, NOW + 30_000)).toEqual({
          taken: false,
          holder: first,
        });
        // The same occurrence (a retry) extends it.
        const extended = { ...first, runId: `${job.jobId}_${NOW}_2`, until: NOW + 45_000 };
        expect(await jobs.takeInFlight(tenant, job.jobId, extended, NOW + 30_000)).toEqual({ taken: true });
        expect(await jobs.releaseInFlight(tenant, job.jobId, second.scheduledFor)).toBe(false);
        expect(await jobs.takeInFlight(tenant, job.jobId, second, NOW + 45_000)).toEqual({
          taken: false,
          holder: extended,
        });
        // One millisecond past `until`, another occurrence takes it over.
        expect(await jobs.takeInFlight(tenant, job.jobId, second, NOW + 45_001)).toEqual({ taken: true });
        expect(await jobs.releaseInFlight(tenant, job.jobId, first.scheduledFor)).toBe(false);
        expect(await jobs.releaseInFlight(tenant, job.jobId, second.scheduledFor)).toBe(true);
        expect(await jobs.releaseInFlight(tenant, job.jobId, second.scheduledFor)).toBe(false);
        expect(await jobs.takeInFlight(tenant, job.jobId, first, NOW)).toEqual({ taken: true });
      });
    });

    describe('runs', () => {
      it('creates a run once: a second create hands back the stored run, unchanged', async () => {
        const tenant = unique('t');
        const run = aRun(tenant, jobIdOf(1), NOW);
        expect(await runs.createIfAbsent(run)).toEqual({ created: true });
        const again = await runs.createIfAbsent({ ...run, createdAt: NOW + 5 });
        expect(again.created).toBe(false);
        expect(domainRun(again.created ? undefined : again.existing)).toEqual(run);
        expect(domainRun(await runs.get(keyOf(run)))).toEqual(run);
        expect(await runs.get({ ...keyOf(run), attempt: 2 })).toBeUndefined();
        expect(await runs.get({ ...keyOf(run), tenantId: `${tenant}x` })).toBeUndefined();
      });

      it('puts a new QUEUED run in the sweep index at its release plus the grace, or where it is told; any other run not at all', async () => {
        const tenant = unique('t');
        const due = aRun(tenant, jobIdOf(1), NOW);
        const parked = aRun(tenant, jobIdOf(2), NOW, 2, { availableAt: NOW + 3_600_000 });
        const skipped = aRun(tenant, jobIdOf(3), NOW, 1, { status: 'SKIPPED' });
        await runs.createIfAbsent(due);
        await runs.createIfAbsent(parked, { sweepAt: NOW + 2_760_000 });
        await runs.createIfAbsent(skipped);
        const found = await sweepable(tenant, Number.MAX_SAFE_INTEGER);
        expect(found.map((run) => [run.runId, run.sweepAt]).sort()).toEqual(
          [
            [due.runId, NOW + DEFAULT_SWEEP_GRACE_MS],
            [parked.runId, NOW + 2_760_000],
          ].sort(),
        );
        expect((await sweepable(tenant, NOW + 2_759_999)).map((run) => run.runId)).toEqual([due.runId]);
      });

      it('claims a QUEUED run once, takes over only a lease that ended before now, and only when allowed', async () => {
        const tenant = unique('t');
        const run = aRun(tenant, jobIdOf(1), NOW);
        await runs.createIfAbsent(run);

        expect(await runs.claim({ ...keyOf(run), attempt: 2 }, lease('a', NOW + 30_000, NOW))).toEqual({
          claimed: false,
        });
        const claimed = await runs.claim(keyOf(run), lease('a', NOW + 30_000, NOW));
        expect(claimed).toMatchObject({
          claimed: true,
          run: { status: 'RUNNING', leaseOwner: 'a', leaseExpiresAt: NOW + 30_000, claimedAt: NOW },
        });
        // Until the lease's last millisecond, nobody else gets it.
        expect(await runs.claim(keyOf(run), lease('b', NOW + 60_000, NOW + 30_000))).toMatchObject({
          claimed: false,
          run: { leaseOwner: 'a' },
        });
        expect(await runs.claim(keyOf(run), lease('b', NOW + 60_000, NOW + 30_001, false))).toMatchObject({
          claimed: false,
          expired: true,
          run: { leaseOwner: 'a' },
        });
        const takeover = await runs.claim(keyOf(run), lease('b', NOW + 60_000, NOW + 30_001));
        expect(takeover).toMatchObject({
          claimed: true,
          run: { leaseOwner: 'b', leaseExpiresAt: NOW + 60_000, recoveries: 1 },
        });
        expect(await runs.complete(keyOf(run), 'a', { status: 'SUCCEEDED', completedAt: NOW + 30_002 })).toBe(false);
      });

      it('releases a claim only for its owner and lease, back to QUEUED and into the sweep index', async () => {
        const tenant = unique('t');
        const run = aRun(tenant, jobIdOf(1), NOW);
        await runs.createIfAbsent(run);
        await runs.claim(keyOf(run), lease('a', NOW + 30_000, NOW));
        expect(await sweepable(tenant, Number.MAX_SAFE_INTEGER)).toEqual([]);

        expect(await runs.release(keyOf(run), 'b', NOW + 30_000)).toBe(false);
        expect(await runs.release(keyOf(run), 'a', NOW + 29_999)).toBe(false);
        const before = Date.now();
        expect(await runs.release(keyOf(run), 'a', NOW + 30_000)).toBe(true);
        expect(await runs.release(keyOf(run), 'a', NOW + 30_000)).toBe(false);

        const released = (await runs.get(keyOf(run))) as Run;
        expect(released.status).toBe('QUEUED');
        expect(released.leaseOwner).toBeUndefined();
        expect(released.leaseExpiresAt).toBeUndefined();
        // QUEUED again, it must not depend on its message alone: the sweep sees it after the grace.
        const swept = await sweepable(tenant, Number.MAX_SAFE_INTEGER);
        expect(swept.map((found) => found.runId)).toEqual([run.runId]);
        expect(swept[0]?.sweepAt).toBeGreaterThanOrEqual(before + DEFAULT_SWEEP_GRACE_MS);
        expect(await runs.claim(keyOf(run), lease('c', NOW + 90_000, NOW + 60_000))).toMatchObject({ claimed: true });
      });

      it('records an outcome only for the lease owner of a RUNNING run, and ends it once', async () => {
        const tenant = unique('t');
        const run = aRun(tenant, jobIdOf(1), NOW);
        await runs.createIfAbsent(run);
        const outcome = {
          status: 'SUCCEEDED' as const,
          completedAt: NOW + 2,
          startedAt: NOW + 1,
          httpStatus: 204,
          durationMs: 1,
        };
        expect(await runs.complete(keyOf(run), 'a', outcome)).toBe(false);
        await runs.claim(keyOf(run), lease('a', NOW + 30_000, NOW));
        expect(await runs.complete(keyOf(run), 'b', outcome)).toBe(false);
        expect(await runs.complete(keyOf(run), 'a', outcome)).toBe(true);
        expect(await runs.complete(keyOf(run), 'a', { ...outcome, status: 'FAILED' })).toBe(false);
        expect(await runs.get(keyOf(run))).toMatchObject({ ...outcome, leaseOwner: 'a' });
        expect(await runs.markLost(keyOf(run), NOW + 30_000, NOW + 40_000)).toBe(false);
        expect(await runs.deadLetter(keyOf(run), 'late', NOW + 40_000)).toBe(false);
        expect(await runs.discardQueued(keyOf(run))).toBe(false);
      });

      it('refuses an outcome the store cannot hold as an OutcomeRejectedError, leaving the run RUNNING', async () => {
        const tenant = unique('t');
        const run = aRun(tenant, jobIdOf(1), NOW);
        await runs.createIfAbsent(run);
        await runs.claim(keyOf(run), lease('a', NOW + 30_000, NOW));
        const ended = { status: 'FAILED' as const, completedAt: NOW + 2 };

        // Past DynamoDB's 400 KB item limit, and a number past what the marshaller writes.
        const tooLarge = runs.complete(keyOf(run), 'a', { ...ended, responseExcerpt: 'b'.repeat(420_000) });
        await expect(tooLarge).rejects.toBeInstanceOf(OutcomeRejectedError);
        const unsafe = runs.complete(keyOf(run), 'a', { ...ended, durationMs: 2 ** 60 });
        await expect(unsafe).rejects.toBeInstanceOf(OutcomeRejectedError);
        expect((await runs.get(keyOf(run)))?.status).toBe('RUNNING');

        expect(await runs.complete(keyOf(run), 'a', { ...ended, responseExcerpt: 'b'.repeat(1_000) })).toBe(true);
        expect(await runs.get(keyOf(run))).toMatchObject({ status: 'FAILED', completedAt: NOW + 2 });
      });

      it('marks lost only a RUNNING run under the lease it names, and dead-letters only unfinished runs', async () => {
        const tenant = unique('t');
        const [running, queued] = [aRun(tenant, jobIdOf(1), NOW), aRun(tenant, jobIdOf(2), NOW)];
        await runs.createIfAbsent(running);
        await runs.createIfAbsent(queued);
        await runs.claim(keyOf(running), lease('a', NOW + 30_000, NOW));

        expect(await runs.markLost(keyOf(queued), NOW + 30_000, NOW + 40_000)).toBe(false);
        expect(await runs.markLost(keyOf(running), NOW + 29_999, NOW + 40_000)).toBe(false);
        expect(await runs.markLost(keyOf(running), NOW + 30_000, NOW + 40_000)).toBe(true);
        expect(await runs.get(keyOf(running))).toMatchObject({
          status: 'FAILED',
          errorType: 'lost',
          completedAt: NOW + 40_000,
        });

        expect(await runs.deadLetter(keyOf(queued), 'poison', NOW + 50_000)).toBe(true);
        expect(await runs.deadLetter(keyOf(queued), 'poison', NOW + 50_001)).toBe(false);
        expect(await runs.deadLetter({ ...keyOf(queued), attempt: 2 }, 'poison', NOW)).toBe(false);
        expect(await runs.get(keyOf(queued))).toMatchObject({
          status: 'DEAD_LETTERED',
          errorType: 'dead_letter',
          error: 'poison',
          deadLetteredAt: NOW + 50_000,
        });
        expect(await sweepable(tenant, Number.MAX_SAFE_INTEGER)).toEqual([]);
      });

      it("lists a job's runs newest first by (scheduledFor, attempt) across 2001-09-09, at every page size", async () => {
        const tenant = unique('t');
        const jobId = jobIdOf(1);
        const times: Array<[number, number]> = [
          [LAST_12_DIGITS, 10],
          [0, 1],
          [FIRST_13_DIGITS, 999],
          [LAST_12_DIGITS, 2],
          [LATEST, 1],
          [FIRST_13_DIGITS, 1],
          [LAST_12_DIGITS, 1],
          [99_999_999_999, 3],
        ];
        for (const [at, attempt] of times) await runs.createIfAbsent(aRun(tenant, jobId, at, attempt));
        await runs.createIfAbsent(aRun(tenant, jobIdOf(2), FIRST_13_DIGITS, 5));
        await runs.bindTriggerKey({ tenantId: tenant, jobId }, 'key-1', NOW, NOW, Math.floor(NOW / 1000) + 3600);
        const newestFirst = [...times]
          .sort((a, b) => b[0] - a[0] || b[1] - a[1])
          .map(([at, attempt]) => `${at}/${attempt}`);

        for (let limit = 1; limit <= times.length + 1; limit++) {
          const pages = await readAllPages((cursor) => runs.listByJob(tenant, jobId, { limit, cursor }), limit);
          expect(pages.flat().map(label)).toEqual(newestFirst);
        }
        const window = async (from?: number, to?: number) =>
          (await readAllPages((cursor) => runs.listByJob(tenant, jobId, { limit: 2, cursor, from, to }), 2))
            .flat()
            .map(label);
        expect(await window(FIRST_13_DIGITS)).toEqual([
          `${LATEST}/1`,
          `${FIRST_13_DIGITS}/999`,
          `${FIRST_13_DIGITS}/1`,
        ]);
        expect(await window(undefined, LAST_12_DIGITS)).toEqual([
          `${LAST_12_DIGITS}/10`,
          `${LAST_12_DIGITS}/2`,
          `${LAST_12_DIGITS}/1`,
          '99999999999/3',
          '0/1',
        ]);
        expect(await window(LAST_12_DIGITS, FIRST_13_DIGITS)).toEqual([
          `${FIRST_13_DIGITS}/999`,
          `${FIRST_13_DIGITS}/1`,
          `${LAST_12_DIGITS}/10`,
          `${LAST_12_DIGITS}/2`,
          `${LAST_12_DIGITS}/1`,
        ]);
        expect(await window(LAST_12_DIGITS + 1, FIRST_13_DIGITS - 1)).toEqual([]);
        expect(await window(0, 0)).toEqual(['0/1']);
        expect(await window(LATEST, LATEST)).toEqual([`${LATEST}/1`]);
      });

      it('continues a run listing exactly after its cursor, even when newer runs arrive between pages', async () => {
        const tenant = unique('t');
        const jobId = jobIdOf(1);
        for (const at of [NOW, NOW + 1_000, NOW + 2_000, NOW + 3_000])
          await runs.createIfAbsent(aRun(tenant, jobId, at));
        const first = await runs.listByJob(tenant, jobId, { limit: 2 });
        expect(first.items.map((run) => run.scheduledFor)).toEqual([NOW + 3_000, NOW + 2_000]);
        // The scanner materializes newer occurrences meanwhile, and a retry of an older one.
        await runs.createIfAbsent(aRun(tenant, jobId, NOW + 4_000));
        await runs.createIfAbsent(aRun(tenant, jobId, NOW + 5_000));
        await runs.createIfAbsent(aRun(tenant, jobId, NOW + 1_000, 2));
        const rest = await readAllPages(
          (cursor) => runs.listByJob(tenant, jobId, { limit: 2, cursor: cursor ?? first.cursor }),
          2,
        );
        expect(rest.flat().map(label)).toEqual([`${NOW + 1_000}/2`, `${NOW + 1_000}/1`, `${NOW}/1`]);
      });

      it('pages through runs filtered by status without a skip or a repeat', async () => {
        const tenant = unique('t');
        const jobId = jobIdOf(1);
        for (let index = 0; index < 9; index++) {
          const run = aRun(tenant, jobId, NOW + index * 1_000);
          await runs.createIfAbsent(run);
          if (index % 3 === 0) await runs.deadLetter(keyOf(run), 'poison', NOW + 10_000 + index);
        }
        for (let limit = 1; limit <= 4; limit++) {
          const dead = await readAllPages(
            (cursor) => runs.listByJob(tenant, jobId, { limit, cursor, status: 'DEAD_LETTERED' }),
            limit,
          );
          expect(dead.flat().map((run) => run.scheduledFor)).toEqual([NOW + 6_000, NOW + 3_000, NOW]);
        }
      });

      it("refuses a run cursor that is not one, belongs to another job, or lies outside the query's range", async () => {
        const tenant = unique('t');
        for (const at of [NOW, NOW + 1_000, NOW + 2_000]) {
          await runs.createIfAbsent(aRun(tenant, jobIdOf(1), at));
          await runs.createIfAbsent(aRun(tenant, jobIdOf(2), at));
        }
        const ofOtherJob = (await runs.listByJob(tenant, jobIdOf(2), { limit: 1 })).cursor as string;
        const ofOtherTenant = await (async () => {
          const other = unique('t');
          for (const at of [NOW, NOW + 1_000]) await runs.createIfAbsent(aRun(other, jobIdOf(1), at));
          return (await runs.listByJob(other, jobIdOf(1), { limit: 1 })).cursor as string;
        })();
        const inRange = (await runs.listByJob(tenant, jobIdOf(1), { limit: 1 })).cursor as string;
        for (const cursor of [ofOtherJob, ofOtherTenant, inRange]) expect(cursor).toBeDefined();

        await expectCursorRefused(runs.listByJob(tenant, jobIdOf(1), { limit: 1, cursor: ofOtherJob }));
        await expectCursorRefused(runs.listByJob(tenant, jobIdOf(1), { limit: 1, cursor: ofOtherTenant }));
        // The cursor stands at NOW + 2000: a query that ends before it cannot continue from it.
        await expectCursorRefused(runs.listByJob(tenant, jobIdOf(1), { limit: 1, cursor: inRange, to: NOW + 1_000 }));
        for (const garbage of ['1', '2', 'not a cursor', 'e30', 'W10', 'x'.repeat(3000)]) {
          await expectCursorRefused(runs.listByJob(tenant, jobIdOf(1), { limit: 1, cursor: garbage }));
        }
      });

      it('finds the previous occurrence (its newest attempt) and the latest runs up to a time, across 2001-09-09', async () => {
        const tenant = unique('t');
        const jobId = jobIdOf(1);
        const made: Array<[number, number]> = [
          [LAST_12_DIGITS - 1, 1],
          [LAST_12_DIGITS, 1],
          [LAST_12_DIGITS, 12],
          [FIRST_13_DIGITS, 1],
          [FIRST_13_DIGITS, 2],
        ];
        for (const [at, attempt] of made) await runs.createIfAbsent(aRun(tenant, jobId, at, attempt));
        await runs.createIfAbsent(aRun(tenant, jobIdOf(2), LAST_12_DIGITS, 100));
        const key = (at: number, attempt: number) => ({ tenantId: tenant, jobId, scheduledFor: at, attempt });

        expect(label((await runs.previous(key(FIRST_13_DIGITS, 2))) as Run)).toBe(`${LAST_12_DIGITS}/12`);
        expect(label((await runs.previous(key(FIRST_13_DIGITS, 1))) as Run)).toBe(`${LAST_12_DIGITS}/12`);
        expect(label((await runs.previous(key(LAST_12_DIGITS, 12))) as Run)).toBe(`${LAST_12_DIGITS - 1}/1`);
        expect(await runs.previous(key(LAST_12_DIGITS - 1, 1))).toBeUndefined();

        const latest = async (until: number, limit: number) =>
          (await runs.latestRuns({ tenantId: tenant, jobId }, until, limit)).map(label);
        expect(await latest(FIRST_13_DIGITS, 3)).toEqual([
          `${FIRST_13_DIGITS}/2`,
          `${FIRST_13_DIGITS}/1`,
          `${LAST_12_DIGITS}/12`,
        ]);
        expect(await latest(FIRST_13_DIGITS - 1, 2)).toEqual([`${LAST_12_DIGITS}/12`, `${LAST_12_DIGITS}/1`]);
        expect(await latest(LATEST, 10)).toHaveLength(made.length);
        expect(await latest(LAST_12_DIGITS - 2, 10)).toEqual([]);
      });

      it('sweeps unclaimed runs due at or before `until`, earliest first per shard, and moves a sweep only from where it stood', async () => {
        const tenant = unique('t');
        const made = [0, 1, 2, 3, 4, 5].map((index) => aRun(tenant, jobIdOf(index), NOW + index * 1_000));
        for (const run of made) await runs.createIfAbsent(run);
        const claimed = made[2] as Run;
        await runs.claim(keyOf(claimed), lease('a', NOW + 30_000, NOW));
        const dueAt = (run: Run) => run.scheduledFor + DEFAULT_SWEEP_GRACE_MS;

        const until = dueAt(made[4] as Run);
        const found = await sweepable(tenant, until);
        expect(found.map((run) => run.runId).sort()).toEqual([0, 1, 3, 4].map((index) => made[index]?.runId).sort());
        for (const run of found) expect(run.sweepAt).toBe(dueAt(run));
        expect((await sweepable(tenant, until - 1)).map((run) => run.runId).sort()).toEqual(
          [0, 1, 3].map((index) => made[index]?.runId).sort(),
        );

        const first = made[0] as Run;
        expect(await runs.rescheduleSweep(keyOf(first), dueAt(first) + 1, NOW + 600_000)).toBe(false);
        expect(await runs.rescheduleSweep(keyOf(first), dueAt(first), NOW + 600_000)).toBe(true);
        expect(await runs.rescheduleSweep(keyOf(first), dueAt(first), NOW + 700_000)).toBe(false);
        expect(await runs.get(keyOf(first))).toMatchObject({ sweeps: 1 });
        expect((await sweepable(tenant, until)).map((run) => run.runId)).not.toContain(first.runId);
        expect((await sweepable(tenant, NOW + 600_000)).find((run) => run.runId === first.runId)?.sweepAt).toBe(
          NOW + 600_000,
        );
      });

      it('lists dead letters newest first, page by page, only the tenant’s own', async () => {
        const tenant = unique('t');
        const other = unique('t');
        const deadAt = [NOW + 3, NOW + 1, NOW + 5, NOW + 2, NOW + 4];
        for (const [index, at] of deadAt.entries()) {
          const run = aRun(tenant, jobIdOf(index), FIRST_13_DIGITS + index);
          await runs.createIfAbsent(run);
          await runs.deadLetter(keyOf(run), 'poison', at);
        }
        const foreignRun = aRun(other, jobIdOf(0), NOW);
        await runs.createIfAbsent(foreignRun);
        await runs.deadLetter(keyOf(foreignRun), 'poison', NOW + 9);
        await runs.createIfAbsent(aRun(tenant, jobIdOf(9), NOW));

        for (let limit = 1; limit <= 6; limit++) {
          const pages = await readAllPages((cursor) => runs.listDeadLetters(tenant, { limit, cursor }), limit);
          expect(pages.flat().map((run) => run.deadLetteredAt)).toEqual([NOW + 5, NOW + 4, NOW + 3, NOW + 2, NOW + 1]);
        }
        await runs.createIfAbsent(aRun(other, jobIdOf(1), NOW));
        await runs.deadLetter(keyOf(aRun(other, jobIdOf(1), NOW)), 'poison', NOW + 10);
        const foreign = (await runs.listDeadLetters(other, { limit: 1 })).cursor as string;
        expect(foreign).toBeDefined();
        await expectCursorRefused(runs.listDeadLetters(tenant, { limit: 1, cursor: foreign }));
        await expectCursorRefused(runs.listDeadLetters(tenant, { limit: 1, cursor: 'bm90IGEgY3Vyc29y' }));
      });

      it('discards only a run still QUEUED', async () => {
        const tenant = unique('t');
        const [queued, claimed] = [aRun(tenant, jobIdOf(1), NOW), aRun(tenant, jobIdOf(1), NOW + 1_000)];
        await runs.createIfAbsent(queued);
        await runs.createIfAbsent(claimed);
        await runs.claim(keyOf(claimed), lease('a', NOW + 30_000, NOW));
        expect(await runs.discardQueued(keyOf(claimed))).toBe(false);
        expect(await runs.discardQueued({ ...keyOf(queued), attempt: 2 })).toBe(false);
        expect(await runs.discardQueued(keyOf(queued))).toBe(true);
        expect(await runs.get(keyOf(queued))).toBeUndefined();
        expect(await runs.discardQueued(keyOf(queued))).toBe(false);
        expect(await sweepable(tenant, Number.MAX_SAFE_INTEGER)).toEqual([]);
      });

      it('binds a trigger Idempotency-Key once per job until it expires, and moves it only from the time it names', async () => {
        const tenant = unique('t');
        const job = { tenantId: tenant, jobId: jobIdOf(1) };
        const expires = Math.floor(NOW / 1000) + 60;
        expect(await runs.bindTriggerKey(job, 'k', NOW, NOW, expires)).toBe(NOW);
        expect(await runs.bindTriggerKey(job, 'k', NOW + 1, NOW, expires)).toBe(NOW);
        expect(await runs.bindTriggerKey({ ...job, jobId: jobIdOf(2) }, 'k', NOW + 2, NOW, expires)).toBe(NOW + 2);
        expect(await runs.bindTriggerKey(job, 'k', NOW + 3, NOW, expires, NOW + 99)).toBe(NOW);
        expect(await runs.bindTriggerKey(job, 'k', NOW + 4, NOW, expires, NOW)).toBe(NOW + 4);
        // Live through its last second; gone the second after.
        expect(await runs.bindTriggerKey(job, 'k', NOW + 5, expires * 1000 + 999, expires + 60)).toBe(NOW + 4);
        expect(await runs.bindTriggerKey(job, 'k', NOW + 6, (expires + 1) * 1000, expires + 60)).toBe(NOW + 6);
        // A binding is no run: the history never shows it.
        expect((await runs.listByJob(tenant, job.jobId, { limit: 10 })).items).toEqual([]);
        expect(await runs.latestRuns(job, LATEST, 10)).toEqual([]);
      });
    });

    describe('against a model, over the whole range', () => {
      // Few cases, each a handful of requests: enough to meet the digit change and both ends of the range.
      const cases = { numRuns: 12 };
      const attempt = fc.oneof(fc.integer({ min: 1, max: 999 }), fc.constantFrom(1, 2, 10, 999));

      it('finds due jobs as the model filters and orders their instants', async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.uniqueArray(storedInstant, { minLength: 1, maxLength: 8 }),
            storedInstant,
            fc.integer({ min: 1, max: 10 }),
            async (instants, until, limit) => {
              const tenant = unique('t');
              const shard = unique('due#');
              for (const [index, nextFireAt] of instants.entries()) {
                await jobs.create(aJob(tenant, jobIdOf(index), { nextFireAt, dueShard: shard }));
              }
              const expected = instants
                .filter((at) => at <= until)
                .sort((a, b) => a - b)
                .slice(0, limit);
              expect((await jobs.findDue(shard, until, limit)).map((job) => job.nextFireAt)).toEqual(expected);
            },
          ),
          cases,
        );
      });

      it('lists any set of runs newest first by (scheduledFor, attempt), page by page, inside any window', async () => {
        const runKey = fc.tuple(storedInstant, attempt);
        await fc.assert(
          fc.asyncProperty(
            fc.uniqueArray(runKey, { minLength: 1, maxLength: 10, selector: ([at, n]) => `${at}/${n}` }),
            fc.integer({ min: 1, max: 4 }),
            fc.option(fc.tuple(storedInstant, storedInstant), { nil: undefined }),
            async (keys, limit, bounds) => {
              const tenant = unique('t');
              const jobId = jobIdOf(1);
              for (const [at, n] of keys) await runs.createIfAbsent(aRun(tenant, jobId, at, n));
              const [from, to] = bounds ? [Math.min(...bounds), Math.max(...bounds)] : [undefined, undefined];
              const expected = keys
                .filter(([at]) => (from === undefined || at >= from) && (to === undefined || at <= to))
                .sort((a, b) => b[0] - a[0] || b[1] - a[1])
                .map(([at, n]) => `${at}/${n}`);
              const pages = await readAllPages(
                (cursor) => runs.listByJob(tenant, jobId, { limit, cursor, from, to }),
                limit,
              );
              expect(pages.flat().map(label)).toEqual(expected);
              const [newest] = keys.sort((a, b) => b[0] - a[0] || b[1] - a[1]);
              const latest = await runs.latestRuns({ tenantId: tenant, jobId }, LATEST, 1);
              expect(latest.map(label)).toEqual([`${newest?.[0]}/${newest?.[1]}`]);
            },
          ),
          cases,
        );
      });
    });

    describe('run slots', () => {
      it('holds at most `cap` slots per tenant, keeps a run its own slot, and frees a slot on release', async () => {
        const [tenant, other] = [unique('t'), unique('t')];
        expect(await slots.acquire(tenant, 'r1', 2, NOW + 30_000, NOW)).toBe(true);
        expect(await slots.acquire(tenant, 'r2', 2, NOW + 30_000, NOW)).toBe(true);
        expect(await slots.acquire(tenant, 'r3', 2, NOW + 30_000, NOW)).toBe(false);
        // A redelivered message of a run that holds a slot keeps it, even at the cap.
        expect(await slots.acquire(tenant, 'r1', 2, NOW + 60_000, NOW)).toBe(true);
        expect(await slots.acquire(other, 'r3', 2, NOW + 30_000, NOW)).toBe(true);
        await slots.release(tenant, 'r2');
        await slots.release(tenant, 'never-held');
        await slots.release(unique('t'), 'r1');
        expect(await slots.acquire(tenant, 'r3', 2, NOW + 30_000, NOW)).toBe(true);
        expect(await slots.acquire(tenant, 'r4', 2, NOW + 30_000, NOW)).toBe(false);
      });

      it('reclaims a slot whose expiry has come, and not a millisecond before', async () => {
        const tenant = unique('t');
        expect(await slots.acquire(tenant, 'dead', 1, NOW + 30_000, NOW)).toBe(true);
        expect(await slots.acquire(tenant, 'next', 1, NOW + 60_000, NOW + 29_999)).toBe(false);
        expect(await slots.acquire(tenant, 'next', 1, NOW + 60_000, NOW + 30_000)).toBe(true);
        expect(await slots.acquire(tenant, 'dead', 1, NOW + 90_000, NOW + 30_001)).toBe(false);
      });
    });
  });
}
