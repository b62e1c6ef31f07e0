import { describe, expect, it } from 'vitest';
import type { CompletedRun } from '#core/use-cases/complete-run';
import { type FailedStreamBatch, redriveStreamBatch, worthRetrying } from '#core/use-cases/stream-failures';

const batch: FailedStreamBatch = {
  streamArn: 'arn:stream',
  shardId: 'shardId-00000000000000000000-00000001',
  startSequenceNumber: '100000000000000000001',
  endSequenceNumber: '100000000000000000009',
};
const run = (runId: string) => ({ tenantId: 't', jobId: 'j', runId, attempt: 1, status: 'SUCCEEDED' }) as CompletedRun;
type Rec = { run?: CompletedRun };

describe('redriveStreamBatch', () => {
  it('completes every terminal run of the range, skips the other records, and one failure stops none of the rest', async () => {
    const completed: string[] = [];
    const result = await redriveStreamBatch<Rec>(
      {
        readRange: async () => ({
          kind: 'read',
          records: [{ run: run('a') }, {}, { run: run('b') }, { run: run('c') }],
        }),
        completedRunOf: (record) => record.run,
        complete: async (r) => {
          if (r.runId === 'b') throw new Error('throttled');
          if (r.runId === 'c') throw new RangeError('beyond a JS number');
          completed.push(r.runId);
          return 'job-completed';
        },
      },
      batch,
    );
    expect(completed).toEqual(['a']);
    expect(result).toEqual({
      kind: 'read',
      records: 4,
      redriven: [{ run: run('a'), change: 'job-completed' }],
      notRedriven: [
        { run: run('b'), reason: 'Error: throttled', ownFault: false },
        { run: run('c'), reason: 'RangeError: beyond a JS number', ownFault: true },
      ],
    });
    // A failure that may clear is worth another try; a run's own fault alone is not.
    expect(worthRetrying(result)).toBe(true);
    if (result.kind === 'read') {
      expect(worthRetrying({ ...result, notRedriven: result.notRedriven.filter((f) => f.ownFault) })).toBe(false);
    }
  });

  it('reports a range the stream no longer holds as gone, completing nothing', async () => {
    let completions = 0;
    const result = await redriveStreamBatch<Rec>(
      {
        readRange: async () => ({ kind: 'gone' }),
        completedRunOf: (record) => record.run,
        complete: async () => {
          completions++;
          return 'unchanged';
        },
      },
      batch,
    );
    expect(result).toEqual({ kind: 'gone' });
    expect(completions).toBe(0);
    expect(worthRetrying(result)).toBe(false);
  });
});
