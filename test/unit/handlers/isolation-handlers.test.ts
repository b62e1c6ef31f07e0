/**
 * The handlers' side of failure isolation, on in-memory adapters (wiring mocked): the scanner
 * writes every shard's heartbeat, a failed shard's with its error, and logs each quarantined job
 * by its ids; the dead-letter handler sets aside a record that can never be recorded and hands a
 * transient failure back for a retry; health turns the heartbeats into the shards it names.
 */
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ShardHeartbeat } from '#core/metrics/ports';
import { heartbeatStateOf } from '#handlers/api/health-heartbeats';
import { RecordingDispatcher } from '../../support/fakes/fakes.ts';
import { InMemoryAsyncRunStore } from '../../support/fakes/in-memory-async-runs.ts';
import { InMemoryDispatchIntents } from '../../support/fakes/in-memory-dispatch-intents.ts';
import { InMemoryJobRepository } from '../../support/fakes/in-memory-jobs.ts';
import { InMemoryRunRepository } from '../../support/fakes/in-memory-runs.ts';
import { unplannableJobFixture } from '../../support/job-fixture.ts';

const fakes = vi.hoisted(() => ({
  jobs: undefined as unknown as InMemoryJobRepository,
  runs: undefined as unknown as InMemoryRunRepository,
  beats: [] as ShardHeartbeat[],
  intents: undefined as unknown as InMemoryDispatchIntents,
}));

vi.mock('#handlers/wiring', () => {
  const config = { horizonMs: 90_000, retentionDays: 7, shardCount: 4 };
  return {
    materializeDeps: () => ({ jobs: fakes.jobs, runs: fakes.runs, dispatcher: new RecordingDispatcher(), config }),
    runRepository: () => fakes.runs,
    runDispatcher: () => new RecordingDispatcher(),
    dispatchIntents: () => fakes.intents,
    schedulingConfig: () => config,
    // The scanner's deadline pass over the same in-memory runs (no async run here: it ends nothing).
    asyncRunDeps: () => ({
      store: new InMemoryAsyncRunStore(fakes.runs),
      runs: fakes.runs,
      jobs: fakes.jobs,
      clock: { now: Date.now, sleepUntil: async () => undefined },
      random: () => 0.5,
      config: { shardCount: config.shardCount, leaseMarginMs: 30_000 },
    }),
    scannerHeartbeats: () => ({
      beat: async (beats: ShardHeartbeat[]) => {
        fakes.beats.push(...beats);
      },
      read: async () => fakes.beats,
    }),
  };
});

const { logger } = await import('#handlers/logger');
const { scan } = await import('#handlers/scanner');
const { handleDeadLetters } = await import('#handlers/dead-letter');

const context = { functionName: 'test', awsRequestId: 'req-1', getRemainingTimeInMillis: () => 30_000 } as Context;
const errors: Array<{ message: string; extra: Record<string, unknown> }> = [];

beforeEach(() => {
  fakes.jobs = new InMemoryJobRepository();
  fakes.runs = new InMemoryRunRepository();
  fakes.beats = [];
  fakes.intents = new InMemoryDispatchIntents();
  errors.length = 0;
  vi.spyOn(logger, 'error').mockImplementation((message: unknown, ...extra: unknown[]) => {
    errors.push({ message: String(message), extra: Object.assign({}, ...(extra as object[])) });
  });
  vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
  vi.spyOn(logger, 'info').mockImplementation(() => undefined);
});
afterEach(() => vi.restoreAllMocks());

function throttled(): Error {
  return Object.assign(new Error('slow down'), { name: 'ThrottlingException' });
}

describe('the scanner handler', () => {
  it('writes a heartbeat for every shard, the failed one with its error, and logs each quarantined job', async () => {
    const now = Date.now();
    const poison = unplannableJobFixture(now, { tenantId: 'tenant-a', jobId: '01POISON' });
    fakes.jobs.items.set('tenant-a/01POISON', poison);
    const findDue = fakes.jobs.findDue.bind(fakes.jobs);
    fakes.jobs.findDue = (shard, until, limit) =>
      shard === 'due#02' ? Promise.reject(throttled()) : findDue(shard, until, limit);

    await scan();

    expect(fakes.beats.map((beat) => beat.shard)).toEqual(['due#00', 'due#01', 'due#02', 'due#03']);
    expect(fakes.beats.filter((beat) => beat.error).map((beat) => [beat.shard, beat.error])).toEqual([
      ['due#02', expect.stringContaining('ThrottlingException')],
    ]);
    expect(errors).toContainEqual({
      message: 'job quarantined',
      extra: { tenantId: 'tenant-a', jobId: '01POISON', reason: expect.stringContaining('RangeError') },
    });
    expect(errors).toContainEqual({
      message: 'scanner shard failed',
      extra: { shard: 'due#02', error: expect.stringContaining('ThrottlingException') },
    });
    expect(heartbeatStateOf(fakes.beats, Date.now(), 180_000)).toEqual({ state: 'failing', failingShards: ['due#02'] });
  });

  it('names a shard whose sweep failed in its heartbeat too', async () => {
    const findSweepable = fakes.runs.findSweepable.bind(fakes.runs);
    fakes.runs.findSweepable = (shard, until, limit) =>
      shard === 'due#03' ? Promise.reject(throttled()) : findSweepable(shard, until, limit);

    await scan();

    expect(fakes.beats.filter((beat) => beat.error).map((beat) => [beat.shard, beat.error])).toEqual([
      ['due#03', expect.stringContaining('sweep: ThrottlingException')],
    ]);
  });
});

describe('health from the heartbeats', () => {
  const beat = (shard: string, at: number, error?: string): ShardHeartbeat => ({
    shard,
    at,
    durationMs: 5,
    jobsFound: 0,
    runsCreated: 0,
    lagMs: 0,
    ...(error ? { error } : {}),
  });

  it('is missing without heartbeats, stale when none is recent, and failing only for recent failed shards', () => {
    const now = 1_000_000;
    expect(heartbeatStateOf([], now, 180_000)).toEqual({ state: 'missing', failingShards: [] });
    expect(heartbeatStateOf([beat('due#00', now - 200_000)], now, 180_000).state).toBe('stale');
    // A shard no longer scanned keeps its last (failed) heartbeat: it only ages, and stops counting.
    expect(heartbeatStateOf([beat('due#00', now - 1_000), beat('due#09', now - 200_000, 'old')], now, 180_000)).toEqual(
      { state: 'ok', failingShards: [] },
    );
    expect(
      heartbeatStateOf(
        [beat('due#03', now - 1_000, 'boom'), beat('due#00', now - 1_000), beat('due#01', now - 1_000, 'boom')],
        now,
        180_000,
      ),
    ).toEqual({ state: 'failing', failingShards: ['due#01', 'due#03'] });
  });
});

describe('the dead-letter handler', () => {
  function recordOf(jobId: string): SQSRecord {
    return {
      messageId: `m-${jobId}`,
      body: JSON.stringify({ tenantId: 't', jobId, scheduledFor: 1_000, attempt: 1, runId: `${jobId}_1000_1` }),
      attributes: { ApproximateReceiveCount: '5' },
    } as unknown as SQSRecord;
  }

  it('sets aside a record whose run the store refuses, retries a transient failure, and records the rest', async () => {
    const deadLetter = fakes.runs.deadLetter.bind(fakes.runs);
    const calls: string[] = [];
    fakes.runs.deadLetter = async (key, reason, now) => {
      calls.push(key.jobId);
      if (key.jobId === 'J-refused') throw Object.assign(new Error('bad key'), { name: 'ValidationException' });
      if (key.jobId === 'J-throttled') throw throttled();
      return deadLetter(key, reason, now);
    };
    const event = { Records: ['J-refused', 'J-throttled', 'J-fine'].map(recordOf) } as SQSEvent;

    const response = await handleDeadLetters(event, context);

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-J-throttled' }]);
    expect(calls.sort()).toEqual(['J-fine', 'J-refused', 'J-throttled']);
    expect(errors).toContainEqual({
      message: 'record set aside: it can never succeed',
      extra: expect.objectContaining({
        handler: 'dead-letter',
        messageId: 'm-J-refused',
        reason: expect.stringContaining('ValidationException'),
      }),
    });
  });
});
