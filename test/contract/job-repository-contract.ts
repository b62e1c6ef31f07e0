/** The JobRepository part of the repository contract: reads, the due-index, listings and every conditional write. */
import { beforeAll, describe, expect, it } from 'vitest';
import { JobExistsError } from '#core/errors';
import type { JobRepository, StoredJob } from '#core/ports';
import {
  aJob,
  type ContractRepositories,
  expectCursorRefused,
  FIRST_13_DIGITS,
  jobIdOf,
  LAST_12_DIGITS,
  LATEST,
  NOW,
  readAllPages,
  unique,
} from './contract-support.ts';

export function jobRepositoryContract(repositories: () => ContractRepositories) {
  describe('jobs', () => {
    let jobs: JobRepository;
    beforeAll(() => {
      ({ jobs } = repositories());
    });

    it('stores a job, reads it back only under its tenant, and refuses a second create of the same id', async () => {
      const tenant = unique('t');
      const job = aJob(tenant, jobIdOf(1), { nextFireAt: NOW, dueShard: unique('due#') });
      await jobs.create(job);
      expect(await jobs.get(tenant, job.jobId)).toEqual(job);
      expect(await jobs.get(`${tenant}x`, job.jobId)).toBeUndefined();
      await expect(jobs.create({ ...job, name: 'again' })).rejects.toBeInstanceOf(JobExistsError);
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

    it("reads a due job's lane and flow-control key from the index: the scanner's runs take them (issue #22)", async () => {
      const shard = unique('due#');
      const flowControl = { key: 'partner-api', ratePerSecond: 10 };
      await jobs.create(
        aJob(unique('t'), jobIdOf(1), { nextFireAt: NOW, dueShard: shard, priority: 'high', flowControl }),
      );
      const [due] = await jobs.findDue(shard, NOW, 1);
      expect(due).toMatchObject({ priority: 'high', flowControl });
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

    it('leaves workflow heads and task items (items with a kind) out of the tenant’s jobs, at every page size', async () => {
      const tenant = unique('t');
      for (let index = 0; index < 6; index++) {
        const kind = [undefined, 'workflow', 'workflow-task'][index % 3];
        await jobs.create(aJob(tenant, jobIdOf(index), kind ? ({ kind } as Partial<StoredJob>) : {}));
      }
      for (let limit = 1; limit <= 3; limit++) {
        const pages = await readAllPages((cursor) => jobs.listByTenant(tenant, { limit, cursor }), limit);
        expect(pages.flat().map((job) => job.jobId)).toEqual([0, 3].map(jobIdOf));
        const active = await readAllPages(
          (cursor) => jobs.listByTenant(tenant, { limit, cursor, status: 'ACTIVE' }),
          limit,
        );
        expect(active.flat().map((job) => job.jobId)).toEqual([0, 3].map(jobIdOf));
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

    it("leaves the definition version to the system's writes: kept when set, stored as the version it stood at when absent", async () => {
      const tenant = unique('t');
      const shard = unique('due#');
      const interval = { type: 'interval', everySeconds: 60, startAt: NOW } as const;
      // Stored before definition versions (absent: the API showed its internal version, 4).
      const legacy = aJob(tenant, jobIdOf(1), { version: 4, schedule: interval, nextFireAt: NOW, dueShard: shard });
      const current = aJob(tenant, jobIdOf(2), {
        version: 4,
        definitionVersion: 2,
        schedule: interval,
        nextFireAt: NOW,
        dueShard: shard,
      });
      const once = aJob(tenant, jobIdOf(3), { version: 5, schedule: { type: 'once', at: NOW }, nextFireAt: NOW });
      const exhausted = aJob(tenant, jobIdOf(4), { version: 6, schedule: interval });
      const quarantined = aJob(tenant, jobIdOf(5), { version: 8, nextFireAt: NOW, dueShard: shard });
      for (const job of [legacy, current, once, exhausted, quarantined]) await jobs.create(job);

      for (const job of [legacy, current]) {
        expect(await jobs.advance(job, { nextFireAt: NOW + 60_000, materialized: 1, now: NOW + 1 })).toBe(true);
        expect(
          await jobs.advance({ ...job, version: 5 }, { nextFireAt: NOW + 120_000, materialized: 1, now: NOW + 2 }),
        ).toBe(true);
      }
      expect(await jobs.finish(tenant, once.jobId, 'COMPLETED', NOW + 1, NOW)).toBe(true);
      expect(await jobs.completeExhausted(tenant, exhausted.jobId, NOW + 1)).toBe(true);
      expect(await jobs.quarantine(quarantined, 'cannot plan', NOW + 1)).toBe(true);

      expect(await jobs.get(tenant, legacy.jobId)).toMatchObject({ version: 6, definitionVersion: 4 });
      expect(await jobs.get(tenant, current.jobId)).toMatchObject({ version: 6, definitionVersion: 2 });
      expect(await jobs.get(tenant, once.jobId)).toMatchObject({ version: 6, definitionVersion: 5 });
      expect(await jobs.get(tenant, exhausted.jobId)).toMatchObject({ version: 7, definitionVersion: 6 });
      expect(await jobs.get(tenant, quarantined.jobId)).toMatchObject({ version: 9, definitionVersion: 8 });
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
}
