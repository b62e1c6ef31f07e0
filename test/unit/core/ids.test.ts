import { describe, expect, it } from 'vitest';
import { dispatchDelaySeconds } from '#core/dispatch-delay';
import { allShards, dueShardOf } from '#core/due-shard';
import { idempotencyKeyOf, parseRunId, runIdOf } from '#core/run-id';

describe('run ids', () => {
  it('derives the same id from the same attempt of the same occurrence', () => {
    const key = { jobId: '01JABCDEFGHJKMNPQRSTVWXYZ0', scheduledFor: 1_780_000_000_000, attempt: 2 };
    expect(runIdOf(key)).toBe('01JABCDEFGHJKMNPQRSTVWXYZ0_1780000000000_2');
    expect(runIdOf({ ...key, attempt: 3 })).toBe('01JABCDEFGHJKMNPQRSTVWXYZ0_1780000000000_3');
    expect(runIdOf({ ...key, scheduledFor: 1_780_000_001_000 })).toBe('01JABCDEFGHJKMNPQRSTVWXYZ0_1780000001000_2');
  });

  it('parses a run id back into its key and rejects anything else', () => {
    const key = { jobId: '01JABCDEFGHJKMNPQRSTVWXYZ0', scheduledFor: 1_780_000_000_000, attempt: 1 };
    expect(parseRunId(runIdOf(key))).toEqual(key);
    expect(parseRunId('not-a-run')).toBeUndefined();
    expect(parseRunId('abc_12_x')).toBeUndefined();
  });

  it('keeps the idempotency key the same across attempts of one occurrence', () => {
    const first = idempotencyKeyOf({ jobId: 'J', scheduledFor: 5 });
    expect(first).toBe('J:5');
    expect(idempotencyKeyOf({ jobId: 'J', scheduledFor: 6 })).not.toBe(first);
  });
});

describe('due-index shards', () => {
  it('names every shard with two digits', () => {
    expect(allShards(16)).toHaveLength(16);
    expect(allShards(16)[0]).toBe('due#00');
    expect(allShards(16)[15]).toBe('due#15');
  });

  it('puts a job in the shard its id hashes to with 32-bit FNV-1a, so no deploy or runtime moves it', () => {
    // Published FNV-1a 32-bit vectors ("" 0x811c9dc5, "a" 0xe40c292c, "foobar" 0xbf9cf968), reduced
    // modulo the shard count: the shard is stored on every job, so another hash would strand jobs
    // in shards the scanner no longer expects them in.
    expect(dueShardOf('', 16)).toBe('due#05');
    expect(dueShardOf('a', 16)).toBe('due#12');
    expect(dueShardOf('foobar', 16)).toBe('due#08');
    expect(dueShardOf('a', 64)).toBe('due#44');
    expect(dueShardOf('foobar', 64)).toBe('due#40');
  });

  it('spreads sequential ids over all shards without a hot one', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 16_000; i++) {
      const shard = dueShardOf(`01J${i.toString(36).toUpperCase().padStart(23, '0')}`, 16);
      counts.set(shard, (counts.get(shard) ?? 0) + 1);
    }
    expect(counts.size).toBe(16);
    for (const count of counts.values()) expect(count).toBeGreaterThan(700);
    for (const count of counts.values()) expect(count).toBeLessThan(1300);
  });
});

describe('dispatch delay', () => {
  it('rounds down so the message is released before the due time, never after', () => {
    expect(dispatchDelaySeconds(10_900, 0)).toBe(10);
    expect(dispatchDelaySeconds(10_000, 0)).toBe(10);
  });

  it('sends overdue runs without delay and caps at the SQS maximum', () => {
    expect(dispatchDelaySeconds(0, 5_000)).toBe(0);
    expect(dispatchDelaySeconds(2_000_000, 0)).toBe(900);
  });
});
