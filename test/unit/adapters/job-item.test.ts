import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jobItemOf, jobOfItem } from '#adapters/dynamodb/job-item';
import { JOBS_TABLE } from '#adapters/dynamodb/table-definitions';
import { PRIORITIES } from '#core/priority';

const policies = { misfire: 'fire_once', overlap: 'allow' } as const;

describe('a job item keeps its lane and flow-control key inside policies', () => {
  it('stores them where the due-index projects them, and reads them back as they were', () => {
    const job = { jobId: 'j', policies, priority: 'high' as const, flowControl: { key: 'k', parallelism: 2 } };
    const item = jobItemOf(job);
    expect(item).toEqual({
      jobId: 'j',
      policies: { ...policies, dispatch: { priority: 'high', flowControl: job.flowControl } },
    });
    // The due-index's projection is fixed once deployed: the lane must ride on an attribute it already carries.
    expect(JOBS_TABLE.dueIndex.projectedAttributes).toContain('policies');
    expect(JOBS_TABLE.dueIndex.projectedAttributes).not.toContain('priority');
    expect(jobOfItem(item)).toEqual(job);
  });

  it('leaves a job without either as it is, and reads an item with them at the top (a task item) as it is', () => {
    expect(jobItemOf({ jobId: 'j', policies })).toEqual({ jobId: 'j', policies });
    const taskItem = { jobId: 't', policies, priority: 'low' };
    expect(jobOfItem(taskItem)).toEqual(taskItem);
  });

  it('round-trips any lane and key', () => {
    fc.assert(
      fc.property(
        fc.option(fc.constantFrom(...PRIORITIES), { nil: undefined }),
        fc.option(
          fc.record({
            key: fc.string({ minLength: 1, maxLength: 128 }),
            ratePerSecond: fc.double({ min: 0.01, max: 10_000, noNaN: true }),
          }),
          { nil: undefined },
        ),
        (priority, flowControl) => {
          const job = {
            jobId: 'j',
            policies,
            ...(priority === undefined ? {} : { priority }),
            ...(flowControl === undefined ? {} : { flowControl }),
          };
          expect(jobOfItem(jobItemOf(job))).toEqual(job);
        },
      ),
    );
  });
});
