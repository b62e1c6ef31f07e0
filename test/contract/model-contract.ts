/** Model-based cases of the repository contract: any set of instants and attempts over the whole range, any page size and window. */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { JobRepository, RunRepository } from '#core/ports';
import { storedInstant } from '../unit/properties/arbitraries.ts';
import {
  aJob,
  aRun,
  type ContractRepositories,
  jobIdOf,
  LATEST,
  label,
  readAllPages,
  unique,
} from './contract-support.ts';

export function modelContract(repositories: () => ContractRepositories) {
  describe('against a model, over the whole range', () => {
    let jobs: JobRepository;
    let runs: RunRepository;
    beforeAll(() => {
      ({ jobs, runs } = repositories());
    });

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
}
