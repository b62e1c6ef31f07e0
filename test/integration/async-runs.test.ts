/**
 * Async runs against DynamoDB Local: the use cases of core/use-cases/async/ through the DynamoDB
 * store (conditional writes, the deadline index, occurrence reads) and the sealed callback keys.
 * Time is a fake clock: the deadline index holds absolute times, so a pass "later" is exact.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoAsyncRunStore } from '#adapters/dynamodb/async-run-store';
import { StoredCallbackKeys } from '#adapters/dynamodb/callback-key-store';
import { DynamoJobRepository } from '#adapters/dynamodb/job-repository';
import { DynamoRunRepository } from '#adapters/dynamodb/run-repository';
import { RUNS_TABLE } from '#adapters/dynamodb/table-definitions';
import { LocalSecretCipher } from '#adapters/secrets/local-cipher';
import { sealCallbackToken } from '#core/async/callback-token';
import { allShards, dueShardOf } from '#core/due-shard';
import { RunStateRefusal } from '#core/errors';
import type { Job, RunKey } from '#core/model';
import { acceptAsyncRun } from '#core/use-cases/async/accept-async-run';
import { asyncCallHeaders } from '#core/use-cases/async/async-call';
import { type CallbackDeps, callbackState, completeAsyncRun, heartbeatRun } from '#core/use-cases/async/callbacks';
import { cancelAsyncRunsInFlight, cancelRun } from '#core/use-cases/async/cancel-run';
import { expireAsyncRuns } from '#core/use-cases/async/expire-async-runs';
import { newRun } from '#core/use-cases/new-run';
import { type EmulatedAws, startEmulatedAws } from '../support/emulated-aws.ts';
import { jobFixture } from '../support/job-fixture.ts';

const T0 = Date.parse('2026-06-01T12:00:00Z');
const SHARDS = 4;
const SETTINGS = { heartbeatTimeoutSeconds: 10, maxDurationSeconds: 100, cancelGraceSeconds: 5 };
const OWNER = 'executor-1';

let aws: EmulatedAws;
let runs: DynamoRunRepository;
let jobs: DynamoJobRepository;
let store: DynamoAsyncRunStore;
let keys: StoredCallbackKeys;
let now = T0;
let cipher: LocalSecretCipher;
const clock = { now: () => now, sleepUntil: async () => undefined };

beforeAll(async () => {
  aws = await startEmulatedAws();
  runs = new DynamoRunRepository(aws.documents, aws.resources.tables.runs, SHARDS);
  jobs = new DynamoJobRepository(aws.documents, aws.resources.tables.jobs);
  store = new DynamoAsyncRunStore(aws.documents, aws.resources.tables.runs);
  cipher = new LocalSecretCipher(LocalSecretCipher.generateKey());
  keys = new StoredCallbackKeys(aws.documents, aws.resources.tables.tenants, cipher);
});
afterAll(() => aws?.stop());

function deps(): CallbackDeps {
  return {
    store,
    keys,
    runs,
    jobs,
    clock,
    random: () => 0.5,
    config: { shardCount: SHARDS, leaseMarginMs: 5_000 },
  };
}

let jobCount = 0;
/** A stored async job (recurring, so its runs are never `superseded`) and its first occurrence's key. */
async function asyncJob(overrides: Partial<Job> = {}): Promise<{ job: Job; key: RunKey }> {
  const job = jobFixture(T0, {
    tenantId: 'tenant-a',
    jobId: `ASYNC${++jobCount}`,
    schedule: { type: 'interval', everySeconds: 60, startAt: T0 },
    async: SETTINGS,
    ...overrides,
  });
  await jobs.create(job);
  return { job, key: { tenantId: job.tenantId, jobId: job.jobId, scheduledFor: T0, attempt: 1 } };
}

/** Puts the attempt QUEUED and claims it as the executor does for an async job (settings on the claim). */
async function claimed(key: RunKey, settings: Job['async'] | null = SETTINGS) {
  await runs.createIfAbsent(newRun(key, key.scheduledFor, key.attempt, now, 30));
  const claim = await runs.claim(key, {
    owner: OWNER,
    expiresAt: now + 60_000,
    now,
    takeOverExpired: true,
    ...(settings ? { async: settings } : {}),
  });
  expect(claim.claimed).toBe(true);
}

const tokenOf = async (key: RunKey) => sealCallbackToken(key, await keys.keys());

async function refusalOf(work: Promise<unknown>): Promise<string> {
  const error = await work.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(RunStateRefusal);
  return (error as RunStateRefusal).code;
}

describe('callback keys', () => {
  it('a reader finds no key before the first is made; the first maker seals one that every process opens', async () => {
    const reader = new StoredCallbackKeys(aws.documents, aws.resources.tables.tenants, cipher, false);
    expect(await reader.keys()).toEqual([]);
    const made = await keys.keys();
    expect(made).toHaveLength(1);
    expect(made[0]?.length).toBeGreaterThanOrEqual(32);
    // Another process (a fresh store) opens the same key; a racing maker keeps the first one's.
    const other = new StoredCallbackKeys(aws.documents, aws.resources.tables.tenants, cipher);
    expect(await other.keys()).toEqual(made);
    const { Item } = await aws.documents.send(
      new (await import('@aws-sdk/lib-dynamodb')).GetCommand({
        TableName: aws.resources.tables.tenants,
        Key: { pk: 'SYSTEM#callback-keys', sk: 'KEYS' },
      }),
    );
    // Stored sealed, never in the clear.
    expect(JSON.stringify(Item)).not.toContain(made[0]);
  });
});

describe('an async attempt through its callbacks', () => {
  it('the 202 makes the run RUNNING under its deadlines, in the deadline index; a second 202 changes nothing', async () => {
    const { key } = await asyncJob();
    now = T0;
    await claimed(key);
    now = T0 + 1_000;
    const accepted = await acceptAsyncRun(deps(), key, OWNER, now);
    expect(accepted).toEqual({ kind: 'accepted', heartbeatDeadline: T0 + 11_000 });
    const run = await runs.get(key);
    expect(run).toMatchObject({
      status: 'RUNNING',
      async: SETTINGS,
      acceptedAt: T0 + 1_000,
      heartbeatDeadline: T0 + 11_000,
      maxDurationDeadline: T0 + 100_000,
      leaseExpiresAt: T0 + 100_000,
      deadlineShard: dueShardOf(key.jobId, SHARDS),
      deadlineAt: T0 + 11_000,
    });
    expect(await acceptAsyncRun(deps(), key, OWNER, now)).toMatchObject({ kind: 'ignored' });
    expect(await acceptAsyncRun(deps(), key, 'another-executor', now)).toMatchObject({ kind: 'ignored' });
  });

  it('a heartbeat records progress and a checkpoint and moves the deadline; a completion ends the run with its output, once', async () => {
    const { key } = await asyncJob();
    now = T0;
    await claimed(key);
    await acceptAsyncRun(deps(), key, OWNER, now);
    const token = await tokenOf(key);
    now = T0 + 4_000;
    const beat = await heartbeatRun(deps(), token, {
      progress: 40,
      message: 'halfway there',
      checkpointJson: '{"page":7}',
    });
    expect(beat).toEqual({ cancelRequested: false, heartbeatDeadline: T0 + 14_000 });
    expect(await runs.get(key)).toMatchObject({
      progress: 40,
      progressMessage: 'halfway there',
      checkpointJson: '{"page":7}',
      checkpointAt: T0 + 4_000,
      heartbeatAt: T0 + 4_000,
      heartbeatDeadline: T0 + 14_000,
      // The index entry stays where the 202 put it (kept lazily: the heartbeat writes the run item alone).
      deadlineAt: T0 + 10_000,
    });

    now = T0 + 6_000;
    const completion = { status: 'succeeded' as const, outputJson: '{"rows":12}', retryable: true, digest: 'd1' };
    const ended = await completeAsyncRun(deps(), token, completion);
    expect(ended).toMatchObject({ status: 'SUCCEEDED', outputJson: '{"rows":12}', completedAt: T0 + 6_000 });
    expect(ended.deadlineShard).toBeUndefined();
    expect(ended.deadlineAt).toBeUndefined();
    // The same completion again answers the first result; another one is refused, nothing changed.
    now = T0 + 7_000;
    expect(await completeAsyncRun(deps(), token, completion)).toMatchObject({
      status: 'SUCCEEDED',
      completedAt: T0 + 6_000,
    });
    const other = { status: 'failed' as const, retryable: true, digest: 'd2' };
    expect(await refusalOf(completeAsyncRun(deps(), token, other))).toBe('RUN_ENDED');
    expect(await refusalOf(heartbeatRun(deps(), token, {}))).toBe('RUN_ENDED');
    expect((await runs.get(key))?.status).toBe('SUCCEEDED');
  });

  it('a completion that comes before the 202 is recorded is accepted; the late 202 then changes nothing', async () => {
    const { key } = await asyncJob();
    now = T0;
    await claimed(key);
    const token = await tokenOf(key);
    now = T0 + 500;
    const ended = await completeAsyncRun(deps(), token, { status: 'succeeded', retryable: true, digest: 'fast' });
    expect(ended.status).toBe('SUCCEEDED');
    expect(await acceptAsyncRun(deps(), key, OWNER, T0 + 600)).toMatchObject({ kind: 'ignored' });
    expect(await runs.get(key)).toMatchObject({ status: 'SUCCEEDED', completionDigest: 'fast' });
  });

  it('refuses forged and tampered tokens, a token for no run, a token for a run that is not async, and a queued run', async () => {
    const { key } = await asyncJob();
    const token = await tokenOf(key);
    expect(await refusalOf(heartbeatRun(deps(), 'forged-token', {}))).toBe('INVALID_CALLBACK_TOKEN');
    const tampered = `${token.slice(0, -2)}${token.endsWith('AA') ? 'AB' : 'AA'}`;
    expect(await refusalOf(heartbeatRun(deps(), tampered, {}))).toBe('INVALID_CALLBACK_TOKEN');
    expect(await refusalOf(callbackState(deps(), 'x'.repeat(10_000)))).toBe('INVALID_CALLBACK_TOKEN');
    // Sealed with a key Chronos does not hold: as forged.
    const foreign = sealCallbackToken(key, ['k'.repeat(43)]);
    expect(
      await refusalOf(completeAsyncRun(deps(), foreign, { status: 'succeeded', retryable: true, digest: 'x' })),
    ).toBe('INVALID_CALLBACK_TOKEN');
    // A valid token, but no run was made for it yet.
    expect(await refusalOf(heartbeatRun(deps(), token, {}))).toBe('RUN_NOT_FOUND');
    // Queued: no call was made that a worker could answer.
    now = T0;
    await runs.createIfAbsent(newRun(key, key.scheduledFor, 1, now, 30));
    expect(await refusalOf(heartbeatRun(deps(), token, {}))).toBe('RUN_NOT_FOUND');
    // A synchronous job's run under its executor's claim takes no callbacks.
    const sync = await asyncJob({ async: undefined });
    await claimed(sync.key, null);
    expect(await refusalOf(heartbeatRun(deps(), await tokenOf(sync.key), {}))).toBe('RUN_NOT_FOUND');
    expect((await runs.get(sync.key))?.asyncRevision).toBeUndefined();
  });
});

describe('the deadline pass', () => {
  it('ends a run whose worker stopped heartbeating TIMED_OUT (heartbeat_timeout) with its retry; keeps one that heartbeats', async () => {
    const silent = await asyncJob();
    const alive = await asyncJob();
    now = T0;
    await claimed(silent.key);
    await claimed(alive.key);
    await acceptAsyncRun(deps(), silent.key, OWNER, now);
    await acceptAsyncRun(deps(), alive.key, OWNER, now);
    now = T0 + 8_000;
    await heartbeatRun(deps(), await tokenOf(alive.key), { progress: 10 });
    now = T0 + 10_001;
    // Other tests' runs share the index (and this clock): only these two are looked at.
    const result = await expireAsyncRuns(deps(), allShards(SHARDS));
    expect(result.ended.heartbeat_timeout).toBeGreaterThanOrEqual(1);
    expect(result.failed).toBe(0);
    const timedOut = await runs.get(silent.key);
    expect(timedOut).toMatchObject({ status: 'TIMED_OUT', errorType: 'heartbeat_timeout', completedAt: T0 + 10_001 });
    // The job's retry policy (3 attempts, 1 s first backoff, jitter 0.5) gives the next attempt.
    expect(timedOut?.nextAttemptAt).toBeGreaterThan(T0 + 10_001);
    expect(timedOut?.deadlineAt).toBeUndefined();
    expect((await runs.get(alive.key))?.status).toBe('RUNNING');
    // Nothing more to do on the next pass.
    expect((await expireAsyncRuns(deps(), allShards(SHARDS))).ended).toEqual({});
  });

  it('moves the index entry a heartbeat left early once it comes due, and ends the run only at its real deadline', async () => {
    const { key } = await asyncJob();
    now = T0;
    await claimed(key);
    await acceptAsyncRun(deps(), key, OWNER, now);
    now = T0 + 9_000;
    await heartbeatRun(deps(), await tokenOf(key), { progress: 1 });
    expect(await runs.get(key)).toMatchObject({ deadlineAt: T0 + 10_000, heartbeatDeadline: T0 + 19_000 });
    now = T0 + 10_001;
    await expireAsyncRuns(deps(), allShards(SHARDS));
    expect(await runs.get(key)).toMatchObject({ status: 'RUNNING', deadlineAt: T0 + 19_000 });
    expect(await store.pastDeadline(dueShardOf(key.jobId, SHARDS), T0 + 19_000, 100)).not.toContainEqual(key);
    now = T0 + 19_001;
    await expireAsyncRuns(deps(), allShards(SHARDS));
    expect(await runs.get(key)).toMatchObject({ status: 'TIMED_OUT', errorType: 'heartbeat_timeout' });
  });

  it('ends a run at its max duration (timeout), heartbeats or not; an at-most-once job is not retried', async () => {
    const { key } = await asyncJob({ delivery: 'at-most-once' });
    now = T0;
    await claimed(key);
    await acceptAsyncRun(deps(), key, OWNER, now);
    for (let at = T0 + 9_000; at < T0 + 100_000; at += 9_000) {
      now = at;
      await heartbeatRun(deps(), await tokenOf(key), {});
    }
    // The heartbeat deadline never passes the max duration.
    expect((await runs.get(key))?.heartbeatDeadline).toBe(T0 + 100_000);
    now = T0 + 100_001;
    expect((await expireAsyncRuns(deps(), allShards(SHARDS))).ended.timeout).toBe(1);
    const run = await runs.get(key);
    expect(run).toMatchObject({ status: 'TIMED_OUT', errorType: 'timeout' });
    expect(run?.nextAttemptAt).toBeUndefined();
  });
});

describe('soft cancel', () => {
  it('a queued run ends CANCELLED at once and leaves the sweep index', async () => {
    const { key } = await asyncJob();
    now = T0;
    await runs.createIfAbsent(newRun(key, key.scheduledFor, 1, now, 30));
    const run = await cancelRun(deps(), key.tenantId, `${key.jobId}_${key.scheduledFor}_1`);
    expect(run).toMatchObject({ status: 'CANCELLED', errorType: 'cancelled' });
    const stored = (await runs.get(key)) as Record<string, unknown> | undefined;
    expect(stored?.[RUNS_TABLE.sweepIndex.partitionKey]).toBeUndefined();
    expect(await refusalOf(cancelRun(deps(), key.tenantId, `${key.jobId}_${key.scheduledFor}_1`))).toBe('RUN_ENDED');
  });

  it('an async run in flight is told through its heartbeat, and ends CANCELLED after the grace when its worker says nothing', async () => {
    const { key } = await asyncJob();
    now = T0;
    await claimed(key);
    await acceptAsyncRun(deps(), key, OWNER, now);
    now = T0 + 2_000;
    const asked = await cancelRun(deps(), key.tenantId, `${key.jobId}_${key.scheduledFor}_1`);
    expect(asked).toMatchObject({ status: 'RUNNING', cancelRequestedAt: T0 + 2_000, deadlineAt: T0 + 7_000 });
    now = T0 + 3_000;
    expect(await heartbeatRun(deps(), await tokenOf(key), {})).toMatchObject({ cancelRequested: true });
    now = T0 + 7_001;
    expect((await expireAsyncRuns(deps(), allShards(SHARDS))).ended.cancelled).toBeGreaterThanOrEqual(1);
    const run = await runs.get(key);
    expect(run).toMatchObject({ status: 'CANCELLED', errorType: 'cancelled' });
    expect(run?.nextAttemptAt).toBeUndefined();
  });

  it('a worker that stops as asked completes failed: CANCELLED, never retried', async () => {
    const { key } = await asyncJob();
    now = T0;
    await claimed(key);
    await acceptAsyncRun(deps(), key, OWNER, now);
    await cancelRun(deps(), key.tenantId, `${key.jobId}_${key.scheduledFor}_1`);
    now = T0 + 1_000;
    const ended = await completeAsyncRun(deps(), await tokenOf(key), {
      status: 'failed',
      error: 'cancelled',
      retryable: true,
      digest: 'stop',
    });
    expect(ended).toMatchObject({ status: 'CANCELLED', error: 'cancelled' });
    expect(ended.nextAttemptAt).toBeUndefined();
  });

  it('a synchronous call in progress cannot be cancelled; another tenant’s run is not found', async () => {
    const { key } = await asyncJob({ async: undefined });
    now = T0;
    await claimed(key, null);
    const runId = `${key.jobId}_${key.scheduledFor}_1`;
    expect(await refusalOf(cancelRun(deps(), key.tenantId, runId))).toBe('RUN_NOT_CANCELLABLE');
    await expect(cancelRun(deps(), 'tenant-b', runId)).rejects.toThrow(/not found/);
    await expect(cancelRun(deps(), key.tenantId, 'not-a-run-id')).rejects.toThrow(/not found/);
    expect((await runs.get(key))?.status).toBe('RUNNING');
  });

  it('a job’s cancel asks each of its async runs in flight to stop', async () => {
    const { key } = await asyncJob();
    const second = { ...key, scheduledFor: T0 + 60_000 };
    now = T0;
    await claimed(key);
    await claimed(second);
    await acceptAsyncRun(deps(), key, OWNER, now);
    const inFlight = (tenantId: string, jobId: string) => store.inFlight(tenantId, jobId);
    expect(await cancelAsyncRunsInFlight({ ...deps(), inFlight }, key.tenantId, key.jobId)).toBe(2);
    expect((await runs.get(key))?.cancelRequestedAt).toBe(T0);
    expect((await runs.get(second))?.cancelRequestedAt).toBe(T0);
  });
});

describe('checkpoints across attempts', () => {
  it('attempt 2 reads the checkpoint attempt 1 left, its call says so, and attempt 1’s token is fenced off', async () => {
    const { key } = await asyncJob();
    now = T0;
    await claimed(key);
    await acceptAsyncRun(deps(), key, OWNER, now);
    const first = await tokenOf(key);
    now = T0 + 2_000;
    await heartbeatRun(deps(), first, { progress: 30, checkpointJson: '{"offset":300}' });
    now = T0 + 12_001;
    await expireAsyncRuns(deps(), allShards(SHARDS));
    const retry = { ...key, attempt: 2 };
    const callDeps = { store, keys, baseUrl: () => 'https://api.example', shardCount: SHARDS };
    expect(await asyncCallHeaders(callDeps, key)).not.toHaveProperty('Chronos-Checkpoint');
    const headers = await asyncCallHeaders(callDeps, retry);
    expect(headers['Chronos-Checkpoint']).toBe('present');
    expect(headers['Chronos-Callback-Url']).toBe(`https://api.example/v1/callbacks/${await tokenOf(retry)}`);

    await claimed(retry);
    const state = await callbackState(deps(), await tokenOf(retry));
    expect(state).toMatchObject({
      attempt: 2,
      active: true,
      cancelRequested: false,
      checkpoint: { attempt: 1, checkpointJson: '{"offset":300}', checkpointAt: T0 + 2_000 },
    });
    expect(await refusalOf(callbackState(deps(), first))).toBe('RUN_ENDED');
    expect(await refusalOf(heartbeatRun(deps(), first, {}))).toBe('RUN_ENDED');
  });
});
