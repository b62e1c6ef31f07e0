import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoRunRepository } from '#adapters/dynamodb/run-repository';
import { dueShardOf } from '#core/due-shard';
import { ValidationError } from '#core/errors';
import { DEFAULT_SWEEP_GRACE_MS } from '#core/runs/send-runs';
import { newRun } from '#core/use-cases/new-run';
import { type EmulatedAws, startEmulatedAws } from '../support/emulated-aws.ts';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const SHARDS = 4;
let aws: EmulatedAws;
let runs: DynamoRunRepository;

beforeAll(async () => {
  aws = await startEmulatedAws();
  runs = new DynamoRunRepository(aws.documents, aws.resources.tables.runs, SHARDS);
});
afterAll(() => aws?.stop());

const lease = (owner: string, expiresAt: number, now: number, takeOverExpired = true) => ({
  owner,
  expiresAt,
  now,
  takeOverExpired,
});

describe('leases and the sweep index', () => {
  it('takes a run out of the sweep index with its claim: the message, not the index, brings a leased run back', async () => {
    const run = newRun({ tenantId: 't', jobId: 'J-sweep' }, NOW, 1, NOW, 7);
    const shard = dueShardOf('J-sweep', SHARDS);
    await runs.createIfAbsent(run);

    await runs.claim(run, lease('a', NOW + 40_000, NOW));
    expect(await runs.findSweepable(shard, NOW + 1e9, 10)).toEqual([]);
    const taken = await runs.claim(run, lease('b', NOW + 90_000, NOW + 50_000));
    expect(taken).toMatchObject({ claimed: true, run: { leaseOwner: 'b', recoveries: 1 } });
    expect(await runs.findSweepable(shard, NOW + 1e9, 10)).toEqual([]);

    await runs.complete(run, 'b', { status: 'SUCCEEDED', completedAt: NOW + 51_000 });
    expect(await runs.findSweepable(shard, NOW + 1e9, 10)).toEqual([]);
  });

  it('indexes a new run with its creating put and unindexes it with the claim: one index write each, none after', async () => {
    const units: Array<{ table: number; index: number }> = [];
    const counted = DynamoDBDocumentClient.from(aws.dynamodb, { marshallOptions: { removeUndefinedValues: true } });
    counted.middlewareStack.add(
      (next) => async (args) => {
        (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'INDEXES';
        const result = await next(args);
        const capacity = (result.output as { ConsumedCapacity?: ConsumedCapacity }).ConsumedCapacity;
        const index = Object.values(capacity?.GlobalSecondaryIndexes ?? {}).reduce(
          (n, c) => n + (c.CapacityUnits ?? 0),
          0,
        );
        units.push({ table: capacity?.Table?.CapacityUnits ?? 0, index });
        return result;
      },
      { step: 'initialize', name: 'consumedIndexCapacity' },
    );
    const countedRuns = new DynamoRunRepository(counted, aws.resources.tables.runs, SHARDS);
    const run = newRun({ tenantId: 't', jobId: 'J-units' }, NOW, 1, NOW, 7);
    const shard = dueShardOf('J-units', SHARDS);

    await countedRuns.createIfAbsent(run);
    const [create] = units.splice(0);
    expect(await runs.findSweepable(shard, NOW + 3_600_000, 10)).toEqual([
      expect.objectContaining({ runId: run.runId, sweepAt: NOW + DEFAULT_SWEEP_GRACE_MS }),
    ]);
    units.length = 0; // the query above (both clients share the middleware)
    await countedRuns.claim(run, lease('a', NOW + 40_000, NOW));
    const [claim] = units.splice(0);
    await countedRuns.claim(run, lease('b', NOW + 90_000, NOW + 50_000));
    await countedRuns.complete(run, 'b', { status: 'SUCCEEDED', completedAt: NOW + 51_000 });
    const after = units.splice(0);

    // The price of finding every unsent run: one index write as the run is created, one as it is claimed.
    console.log(`write units per run: create ${JSON.stringify(create)}, claim ${JSON.stringify(claim)}`);
    expect(create).toEqual({ table: 1, index: 1 });
    expect(claim).toEqual({ table: 1, index: 1 });
    expect(after).toEqual([
      { table: 1, index: 0 },
      { table: 1, index: 0 },
    ]);
    expect(await runs.findSweepable(shard, NOW + 1e9, 10)).toEqual([]);
  });

  it('leaves nothing in the sweep index once a queued run is dead-lettered or discarded, or created finished', async () => {
    const shard = dueShardOf('J-ends', SHARDS);
    const dead = newRun({ tenantId: 't', jobId: 'J-ends' }, NOW, 1, NOW, 7);
    const discarded = newRun({ tenantId: 't', jobId: 'J-ends' }, NOW + 1_000, 1, NOW, 7);
    const finished = {
      ...newRun({ tenantId: 't', jobId: 'J-ends' }, NOW + 2_000, 1, NOW, 7),
      status: 'SKIPPED' as const,
    };
    for (const run of [dead, discarded, finished]) await runs.createIfAbsent(run);
    expect(await runs.findSweepable(shard, NOW + 1e9, 10)).toHaveLength(2);

    await runs.deadLetter(dead, 'poison', NOW + 10);
    await runs.discardQueued(discarded);

    expect(await runs.findSweepable(shard, NOW + 1e9, 10)).toEqual([]);
  });

  it('takes a parked retry out of the sweep index when it is claimed', async () => {
    const run = { ...newRun({ tenantId: 't', jobId: 'J-unpark' }, NOW, 2, NOW, 7), availableAt: NOW + 3_600_000 };
    const shard = dueShardOf('J-unpark', SHARDS);
    await runs.createIfAbsent(run, { sweepAt: NOW + 2_760_000 });
    expect(await runs.findSweepable(shard, NOW + 1e9, 10)).toHaveLength(1);

    await runs.claim(run, lease('a', NOW + 3_640_000, NOW + 3_600_000));

    expect(await runs.findSweepable(shard, NOW + 1e9, 10)).toEqual([]);
    expect(await runs.get(run)).toMatchObject({ status: 'RUNNING', leaseOwner: 'a' });
  });

  it('moves a swept run forward once, for the first of two racing scanners', async () => {
    const run = { ...newRun({ tenantId: 't', jobId: 'J-race' }, NOW, 2, NOW, 7), availableAt: NOW + 3_600_000 };
    await runs.createIfAbsent(run, { sweepAt: NOW + 10_000 });

    const [first, second] = await Promise.all([
      runs.rescheduleSweep(run, NOW + 10_000, NOW + 400_000),
      runs.rescheduleSweep(run, NOW + 10_000, NOW + 400_000),
    ]);

    expect([first, second].filter(Boolean)).toHaveLength(1);
    expect(await runs.findSweepable(dueShardOf('J-race', SHARDS), NOW + 399_999, 10)).toEqual([]);
  });

  it('parks a run in the sweep index when created with sweepAt', async () => {
    const run = { ...newRun({ tenantId: 't', jobId: 'J-park' }, NOW, 2, NOW, 7), availableAt: NOW + 3_600_000 };
    await runs.createIfAbsent(run, { sweepAt: NOW + 2_760_000 });
    const found = await runs.findSweepable(dueShardOf('J-park', SHARDS), NOW + 2_760_000, 10);
    expect(found).toEqual([
      expect.objectContaining({ runId: run.runId, status: 'QUEUED', availableAt: NOW + 3_600_000 }),
    ]);
  });

  it('refuses a takeover when the job forbids it and records the run as lost instead', async () => {
    const run = newRun({ tenantId: 't', jobId: 'J-amo' }, NOW, 1, NOW, 7);
    await runs.createIfAbsent(run);
    await runs.claim(run, lease('crashed', NOW + 5_000, NOW));

    const claim = await runs.claim(run, lease('b', NOW + 60_000, NOW + 6_000, false));
    expect(claim).toMatchObject({ claimed: false, expired: true, run: { leaseOwner: 'crashed' } });

    expect(await runs.markLost(run, NOW + 5_000, NOW + 6_000)).toBe(true);
    expect(await runs.markLost(run, NOW + 5_000, NOW + 6_001)).toBe(false);
    expect(await runs.get(run)).toMatchObject({ status: 'FAILED', errorType: 'lost', completedAt: NOW + 6_000 });
    expect(await runs.findSweepable(dueShardOf('J-amo', SHARDS), NOW + 1e9, 10)).toEqual([]);
  });
});

describe('dead letters', () => {
  it('ends an open run as DEAD_LETTERED and lists it for its tenant only, newest first', async () => {
    const older = newRun({ tenantId: 'tenant-dl', jobId: 'J-dl' }, NOW, 1, NOW, 7);
    const newer = newRun({ tenantId: 'tenant-dl', jobId: 'J-dl' }, NOW + 1_000, 1, NOW, 7);
    const finished = newRun({ tenantId: 'tenant-dl', jobId: 'J-dl' }, NOW + 2_000, 1, NOW, 7);
    for (const run of [older, newer, finished]) await runs.createIfAbsent(run);
    await runs.claim(finished, lease('a', NOW + 60_000, NOW));
    await runs.complete(finished, 'a', { status: 'SUCCEEDED', completedAt: NOW + 1 });

    expect(await runs.deadLetter(older, 'poison', NOW + 10)).toBe(true);
    expect(await runs.deadLetter(newer, 'poison', NOW + 20)).toBe(true);
    expect(await runs.deadLetter(finished, 'poison', NOW + 30)).toBe(false);
    expect(await runs.deadLetter(older, 'again', NOW + 40)).toBe(false);

    const page = await runs.listDeadLetters('tenant-dl', { limit: 10 });
    expect(page.items.map((r) => r.runId)).toEqual([newer.runId, older.runId]);
    expect(page.items[0]).toMatchObject({ status: 'DEAD_LETTERED', errorType: 'dead_letter', error: 'poison' });
    expect((await runs.listDeadLetters('someone-else', { limit: 10 })).items).toEqual([]);
  });

  it('pages through dead letters with a cursor bound to the tenant', async () => {
    const first = await runs.listDeadLetters('tenant-dl', { limit: 1 });
    expect(first.cursor).toBeDefined();
    const second = await runs.listDeadLetters('tenant-dl', { limit: 1, cursor: first.cursor as string });
    expect(second.items).toHaveLength(1);
    expect(second.items[0]?.runId).not.toBe(first.items[0]?.runId);
    // Another tenant's cursor is a client error, not an empty page that would hide it.
    await expect(
      runs.listDeadLetters('someone-else', { limit: 1, cursor: first.cursor as string }),
    ).rejects.toBeInstanceOf(ValidationError);
  });

  it('refuses a dead-letters cursor with the right key names but wrong types before it reaches DynamoDB', async () => {
    const first = await runs.listDeadLetters('tenant-dl', { limit: 1 });
    const key = JSON.parse(Buffer.from(first.cursor as string, 'base64url').toString('utf8'));
    for (const forged of [
      { ...key, deadLetteredAt: String(key.deadLetteredAt) },
      { ...key, deadLetteredAt: 1e300 },
      { ...key, sk: 5 },
      { ...key, pk: 'someone-else#J' },
    ]) {
      const cursor = Buffer.from(JSON.stringify(forged)).toString('base64url');
      await expect(runs.listDeadLetters('tenant-dl', { limit: 1, cursor })).rejects.toBeInstanceOf(ValidationError);
    }
  });
});
