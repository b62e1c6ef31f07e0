/** The RunRepository part of the repository contract: the run lifecycle, the sweep index, histories, dead letters and trigger keys. */
import { beforeAll, describe, expect, it } from 'vitest';
import { OutcomeRejectedError } from '#core/errors';
import type { Run } from '#core/model';
import type { RunRepository } from '#core/ports';
import { DEFAULT_SWEEP_GRACE_MS } from '#core/runs/send-runs';
import {
  aRun,
  type ContractRepositories,
  domainRun,
  expectCursorRefused,
  FIRST_13_DIGITS,
  jobIdOf,
  keyOf,
  LAST_12_DIGITS,
  LATEST,
  label,
  lease,
  NOW,
  readAllPages,
  sweepableRuns,
  unique,
} from './contract-support.ts';

export function runRepositoryContract(repositories: () => ContractRepositories) {
  describe('runs', () => {
    let runs: RunRepository;
    beforeAll(() => {
      ({ runs } = repositories());
    });
    const sweepable = (tenantId: string, until: number) => sweepableRuns(repositories(), tenantId, until);
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

    it('leaves a run put with inSweepIndex false out of the sweep index (a scanner page’s intent covers it)', async () => {
      const tenant = unique('t');
      const covered = aRun(tenant, jobIdOf(1), NOW);
      expect(await runs.createIfAbsent(covered, { inSweepIndex: false })).toEqual({ created: true });
      expect(await runs.get(keyOf(covered))).toMatchObject({ status: 'QUEUED' });
      expect(await sweepable(tenant, Number.MAX_SAFE_INTEGER)).toEqual([]);
      // Swept through its intent: counted while QUEUED, not once claimed.
      expect(await runs.countSweep(keyOf(covered))).toBe(true);
      expect(await runs.get(keyOf(covered))).toMatchObject({ sweeps: 1, status: 'QUEUED' });
      await runs.claim(keyOf(covered), { owner: 'e', expiresAt: NOW + 60_000, now: NOW, takeOverExpired: true });
      expect(await runs.countSweep(keyOf(covered))).toBe(false);
      expect(await runs.countSweep({ ...keyOf(covered), attempt: 2 })).toBe(false);
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
      expect(await window(FIRST_13_DIGITS)).toEqual([`${LATEST}/1`, `${FIRST_13_DIGITS}/999`, `${FIRST_13_DIGITS}/1`]);
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
      for (const at of [NOW, NOW + 1_000, NOW + 2_000, NOW + 3_000]) await runs.createIfAbsent(aRun(tenant, jobId, at));
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
}
