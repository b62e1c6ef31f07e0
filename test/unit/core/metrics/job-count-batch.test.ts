import { describe, expect, it } from 'vitest';
import { jobCountBatch } from '#core/metrics/job-count-batch';
import type { JobStatusCounts, JobStatusDeltas } from '#core/metrics/ports';

function recordingCounts() {
  const adds: Array<[string, JobStatusDeltas]> = [];
  const counts: JobStatusCounts = {
    shift: async () => {
      throw new Error('a batch writes with add only');
    },
    add: async (tenantId, deltas) => {
      adds.push([tenantId, deltas]);
    },
    read: async (scope) => ({ ACTIVE: scope === 't1' ? 7 : 0 }),
  };
  return { adds, counts };
}

describe('job-status moves of a batch', () => {
  it('writes nothing until flushed, then one add per tenant with the summed moves', async () => {
    const { adds, counts } = recordingCounts();
    const batch = jobCountBatch(counts);

    await batch.counts.shift('t1', 'ACTIVE', 'COMPLETED');
    await batch.counts.shift('t1', 'ACTIVE', 'COMPLETED');
    await batch.counts.shift('t1', 'ACTIVE', 'FAILED');
    await batch.counts.shift('t2', 'ACTIVE', 'COMPLETED');
    expect(adds).toEqual([]);

    await batch.flush();

    expect(adds).toEqual([
      ['t1', { ACTIVE: -3, COMPLETED: 2, FAILED: 1 }],
      ['t2', { ACTIVE: -1, COMPLETED: 1 }],
    ]);
  });

  it('leaves out moves that cancel out, and forgets what it flushed', async () => {
    const { adds, counts } = recordingCounts();
    const batch = jobCountBatch(counts);

    await batch.counts.shift('t1', 'ACTIVE', 'PAUSED');
    await batch.counts.shift('t1', 'PAUSED', 'ACTIVE');
    await batch.counts.shift('t2', 'ACTIVE', 'ACTIVE');
    await batch.counts.add('t3', { CANCELLED: 1, ACTIVE: -1 });
    await batch.flush();
    await batch.flush();

    expect(adds).toEqual([['t3', { CANCELLED: 1, ACTIVE: -1 }]]);
  });

  it('reads straight through', async () => {
    const { counts } = recordingCounts();
    expect(await jobCountBatch(counts).counts.read('t1')).toEqual({ ACTIVE: 7 });
  });
});
