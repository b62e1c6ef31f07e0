/**
 * The callback GET: the token's attempt, its cancel flag, and the occurrence's latest checkpoint
 * from any attempt up to the token's, so a retried worker resumes.
 */
import { describe, expect, it } from 'vitest';
import type { AsyncRunRecord } from '#core/async/apply-write';
import { callbackStateOf, hasEarlierCheckpoint, latestCheckpoint } from '#core/async/callback-state';
import { acceptedRun, claimedRun, claimsOf, SECOND, T0 } from './fixtures.ts';

const first: AsyncRunRecord = acceptedRun({ status: 'TIMED_OUT' });
first.checkpointJson = '{"offset":40}';
first.checkpointAt = T0 + 30 * SECOND;
const second: AsyncRunRecord = claimedRun({ attempt: 2, claimedAt: T0 + 100 * SECOND });

describe('latestCheckpoint', () => {
  it('is the one recorded last, up to the given attempt, the later attempt’s on a tie', () => {
    const later = { attempt: 2, checkpointJson: '"b"', checkpointAt: T0 + 50 * SECOND };
    const runs = [{ attempt: 1, checkpointJson: '"a"', checkpointAt: T0 + 30 * SECOND }, later];
    expect(latestCheckpoint(runs, 2)).toEqual(later);
    expect(latestCheckpoint(runs, 1)?.checkpointJson).toBe('"a"');
    expect(latestCheckpoint([...runs, { ...later, attempt: 3, checkpointJson: '"c"' }], 3)?.checkpointJson).toBe('"c"');
    expect(latestCheckpoint([{ attempt: 1 }], 1)).toBeUndefined();
  });

  it('marks a retried call when an earlier attempt left a checkpoint, not the first call', () => {
    expect(hasEarlierCheckpoint([first, second], 2)).toBe(true);
    expect(hasEarlierCheckpoint([first], 1)).toBe(false);
    expect(hasEarlierCheckpoint([claimedRun(), second], 2)).toBe(false);
  });
});

describe('callbackStateOf', () => {
  it('gives a retried worker its attempt and the checkpoint the timed-out attempt left', () => {
    expect(callbackStateOf(claimsOf(second), [second, first], T0 + 101 * SECOND)).toEqual({
      ok: true,
      state: {
        attempt: 2,
        active: true,
        cancelRequested: false,
        checkpoint: { attempt: 1, checkpointJson: '{"offset":40}', checkpointAt: T0 + 30 * SECOND },
      },
    });
  });

  it('tells a worker of its cancel request and its deadline, and that a missed deadline ended it', () => {
    const run = acceptedRun({ cancelRequestedAt: T0 + 5 * SECOND });
    expect(callbackStateOf(claimsOf(run), [run], T0 + 10 * SECOND)).toEqual({
      ok: true,
      state: { attempt: 1, active: true, cancelRequested: true, heartbeatDeadline: T0 + 61 * SECOND },
    });
    expect(callbackStateOf(claimsOf(run), [run], T0 + 62 * SECOND)).toMatchObject({
      ok: true,
      state: { active: false },
    });
  });

  it('answers an older attempt’s token RUN_ENDED, and a token for no run RUN_NOT_FOUND', () => {
    expect(callbackStateOf(claimsOf(first), [first, second], T0)).toEqual({ ok: false, code: 'RUN_ENDED' });
    expect(callbackStateOf({ ...claimsOf(second), attempt: 3 }, [first, second], T0)).toEqual({
      ok: false,
      code: 'RUN_NOT_FOUND',
    });
    expect(callbackStateOf({ ...claimsOf(second), tenantId: 'other' }, [first, second], T0)).toEqual({
      ok: false,
      code: 'RUN_NOT_FOUND',
    });
  });
});
