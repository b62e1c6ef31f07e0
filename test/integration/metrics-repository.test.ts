/** The metrics table adapters against DynamoDB Local: count-once aggregates, job counters, heartbeats, dispatch intents. */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDispatchIntents } from '#adapters/dynamodb/dispatch-intent-store';
import { DynamoJobStatusCounts } from '#adapters/dynamodb/job-status-counts';
import { batchMarkerKey, jobCountsKey } from '#adapters/dynamodb/metrics-keys';
import { DynamoRunAggregates } from '#adapters/dynamodb/run-aggregates';
import { DynamoScannerHeartbeats } from '#adapters/dynamodb/scanner-heartbeats';
import { bucketOf } from '#core/metrics/lag-histogram';
import { type AggregateBatch, type AggregateEntry, ALL_TENANTS } from '#core/metrics/ports';
import { minuteOf, type RunSample } from '#core/metrics/run-sample';
import { intentOf } from '#core/runs/dispatch-intent';
import { type EmulatedAws, startEmulatedAws } from '../support/emulated-aws.ts';

// Near the real now: DynamoDB Local applies TTL, and buckets and markers expire days after their minute.
const MINUTE = minuteOf(Date.now());
let aws: EmulatedAws;
let aggregates: DynamoRunAggregates;
let jobCounts: DynamoJobStatusCounts;
let heartbeats: DynamoScannerHeartbeats;

beforeAll(async () => {
  aws = await startEmulatedAws();
  const table = aws.resources.tables.metrics;
  aggregates = new DynamoRunAggregates(aws.documents, table);
  // The tenant list the all-tenants read sums over (the tenants table, in the handlers' wiring).
  jobCounts = new DynamoJobStatusCounts(aws.documents, table, tenantsNamed(['jt', 'other', 'nobody']));
  heartbeats = new DynamoScannerHeartbeats(aws.documents, table);
});
afterAll(() => aws?.stop());

const sample = (tenantId: string, over: Partial<RunSample> = {}): RunSample => ({
  tenantId,
  status: 'SUCCEEDED',
  minute: MINUTE,
  retried: false,
  slaMissed: false,
  heartbeatTimeout: false,
  startLagBucket: bucketOf(20),
  durationBucket: bucketOf(300),
  ...over,
});
const finished = (position: string | number, tenantId: string, over: Partial<RunSample> = {}): AggregateEntry => ({
  position: String(position),
  finished: sample(tenantId, over),
  queue: [],
});
const queued = (position: string | number, tenantId: string, direction: 'in' | 'out', minute = MINUTE) => ({
  position: String(position),
  queue: [{ tenantId, minute, direction }],
});
let batches = 0;
const batchId = () => `batch-${++batches}-${Date.now()}`;

describe('run aggregates', () => {
  it('counts a batch once per tenant and for all tenants, however often it is delivered', async () => {
    const id = batchId();
    const entries = [
      finished(101, 't1'),
      finished(102, 't1', { status: 'FAILED', retried: true, startLagBucket: bucketOf(7_000) }),
      finished(103, 't2', { minute: MINUTE + 60_000, slaMissed: true }),
    ];

    expect(await aggregates.add({ id, entries })).toBe(3);
    expect(await aggregates.add({ id, entries })).toBe(0);

    const t1 = await aggregates.read('t1', MINUTE, MINUTE + 60_000);
    expect(t1).toHaveLength(1);
    expect(t1[0]?.counts).toMatchObject({ SUCCEEDED: 1, FAILED: 1 });
    expect(t1[0]?.retried).toBe(1);
    expect(t1[0]?.startLag[bucketOf(20)]).toBe(1);
    expect(t1[0]?.startLag[bucketOf(7_000)]).toBe(1);
    const all = await aggregates.read(ALL_TENANTS, MINUTE, MINUTE + 60_000);
    expect(all.map((b) => [b.minute, b.counts.SUCCEEDED, b.counts.FAILED, b.slaMissed])).toEqual([
      [MINUTE, 1, 1, 0],
      [MINUTE + 60_000, 1, 0, 1],
    ]);
  });

  it('counts heartbeat timeouts in the bucket of the tenant and of all tenants, next to TIMED_OUT', async () => {
    const minute = MINUTE + 7 * 60_000;
    const entries = [
      finished(201, 'hb', { minute, status: 'TIMED_OUT', heartbeatTimeout: true }),
      finished(202, 'hb', { minute, status: 'TIMED_OUT' }),
      finished(203, 'hb', { minute, status: 'TIMED_OUT', heartbeatTimeout: true }),
    ];

    expect(await aggregates.add({ id: batchId(), entries })).toBe(3);

    const [tenant] = await aggregates.read('hb', minute, minute);
    expect([tenant?.counts.TIMED_OUT, tenant?.heartbeatTimeouts]).toEqual([3, 2]);
    const [all] = await aggregates.read(ALL_TENANTS, minute, minute);
    expect(all?.heartbeatTimeouts).toBe(2);
  });

  it('keeps one marker per batch, holding the position of the last record counted', async () => {
    const id = batchId();
    await aggregates.add({ id, entries: [finished(5, 'tm'), queued(8, 'tm', 'in')] });
    const { Item } = await aws.documents.send(
      new GetCommand({ TableName: aws.resources.tables.metrics, Key: batchMarkerKey(id) }),
    );
    expect(Item).toMatchObject({ lastCounted: '8' });
    expect(Item?.expiresAt).toBeGreaterThan(Date.now() / 1000);
  });

  it('counts, on a redelivery of the same batch, only the records after the last one counted', async () => {
    const id = batchId();
    // The first delivery counted up to 9 (a later record failed); the redelivery brings more.
    expect(await aggregates.add({ id, entries: [finished(8, 'r1'), finished(9, 'r1')] })).toBe(2);
    // Positions compare as numbers: "10" is after "9" although it sorts before it as text.
    const redelivered = [finished(8, 'r1'), finished(9, 'r1'), finished(10, 'r1'), finished(11, 'r1')];
    expect(await aggregates.add({ id, entries: redelivered })).toBe(2);
    expect(await aggregates.add({ id, entries: redelivered })).toBe(0);

    const [bucket] = await aggregates.read('r1', MINUTE, MINUTE);
    expect(bucket?.counts.SUCCEEDED).toBe(4);
  });

  it('counts the records from a partial failure on in their own batch, named after the failed record', async () => {
    // Delivery 1: records 20..23, 22 failed: only 20 and 21 are counted under its name.
    const first = [finished(20, 'p1'), finished(21, 'p1'), finished(22, 'p1'), finished(23, 'p1')];
    expect(await aggregates.add({ id: batchId(), entries: first.slice(0, 2) })).toBe(2);
    // Lambda goes on from 22: a batch of its own, then delivered twice.
    const retry = { id: batchId(), entries: first.slice(2) };
    expect(await aggregates.add(retry)).toBe(2);
    expect(await aggregates.add(retry)).toBe(0);

    const [bucket] = await aggregates.read('p1', MINUTE, MINUTE);
    expect(bucket?.counts.SUCCEEDED).toBe(4);
  });

  it('keeps the queued counters: in by due minute, out of that same minute', async () => {
    const later = MINUTE + 120_000;
    await aggregates.add({
      id: batchId(),
      entries: [queued(1, 'q1', 'in'), queued(2, 'q1', 'in'), queued(3, 'q1', 'in', later), queued(4, 'q1', 'out')],
    });
    const buckets = await aggregates.read('q1', MINUTE, later);
    expect(buckets.map((b) => [b.minute, b.queuedIn, b.queuedOut])).toEqual([
      [MINUTE, 2, 1],
      [later, 1, 0],
    ]);
    const [all] = await aggregates.read(ALL_TENANTS, MINUTE, MINUTE);
    expect(all?.queuedIn).toBeGreaterThanOrEqual(2);
  });

  it('splits a batch whose buckets exceed one transaction, and still counts it once', async () => {
    // 60 records due in 60 different minutes: 120 buckets (tenant and all tenants), over the 99 a
    // transaction holds next to the marker.
    const entries = Array.from({ length: 60 }, (_, i) => queued(1_000 + i, 'big', 'in', MINUTE + i * 60_000));
    const id = batchId();
    expect(await aggregates.add({ id, entries })).toBe(60);
    expect(await aggregates.add({ id, entries })).toBe(0);

    const buckets = await aggregates.read('big', MINUTE, MINUTE + 59 * 60_000);
    expect(buckets).toHaveLength(60);
    expect(buckets.every((b) => b.queuedIn === 1)).toBe(true);
  });

  it('reads only the minutes asked for', async () => {
    await aggregates.add({
      id: batchId(),
      entries: [finished(1, 't3', { minute: MINUTE - 120_000 }), finished(2, 't3')],
    });
    expect((await aggregates.read('t3', MINUTE - 60_000, MINUTE)).map((b) => b.minute)).toEqual([MINUTE]);
  });

  it('counts exactly when concurrent batches race on the same bucket, and a batch racing with itself once', async () => {
    const batch = (n: number) => ({
      id: batchId(),
      entries: Array.from({ length: 10 }, (_, i) => finished(n * 100 + i, 't4')),
    });
    const racing = [batch(1), batch(2), batch(3), batch(4)];
    const added = await Promise.all([...racing, racing[0] as AggregateBatch].map((b) => aggregates.add(b)));
    expect(added.reduce((a, b) => a + b, 0)).toBe(40);
    const [bucket] = await aggregates.read('t4', MINUTE, MINUTE);
    expect(bucket?.counts.SUCCEEDED).toBe(40);
  });
});

describe('job-status counters', () => {
  it("moves a job between statuses in its tenant's counters, and sums the tenants for all of them", async () => {
    await jobCounts.shift('jt', undefined, 'ACTIVE');
    await jobCounts.shift('jt', undefined, 'ACTIVE');
    await jobCounts.shift('jt', 'ACTIVE', 'PAUSED');
    await jobCounts.shift('jt', 'PAUSED', 'CANCELLED');
    await jobCounts.shift('other', undefined, 'ACTIVE');

    expect(await jobCounts.read('jt')).toEqual({ ACTIVE: 1, PAUSED: 0, COMPLETED: 0, FAILED: 0, CANCELLED: 1 });
    expect(await jobCounts.read(ALL_TENANTS)).toEqual({ ACTIVE: 2, PAUSED: 0, COMPLETED: 0, FAILED: 0, CANCELLED: 1 });
    expect((await jobCounts.read('nobody')).ACTIVE).toBe(0);
    // One write per status change: no all-tenants item.
    const { Item } = await aws.documents.send(
      new GetCommand({ TableName: aws.resources.tables.metrics, Key: jobCountsKey(ALL_TENANTS) }),
    );
    expect(Item).toBeUndefined();
  });

  it('moves many jobs of a tenant in one write', async () => {
    await jobCounts.shift('batch', undefined, 'ACTIVE');
    await jobCounts.shift('batch', undefined, 'ACTIVE');
    await jobCounts.shift('batch', undefined, 'ACTIVE');

    await jobCounts.add('batch', { ACTIVE: -3, COMPLETED: 2, FAILED: 1, PAUSED: 0 });

    expect(await jobCounts.read('batch')).toEqual({ ACTIVE: 0, PAUSED: 0, COMPLETED: 2, FAILED: 1, CANCELLED: 0 });
  });

  it('adds the jobs counted ACTIVE by their admission, of the tenant and of all', async () => {
    const shares = new Map([
      ['adm', 5],
      ['adm-too', 2],
    ]);
    const admitted = { of: async (tenantId: string) => shares.get(tenantId) ?? 0, all: async () => shares };
    const counts = new DynamoJobStatusCounts(aws.documents, aws.resources.tables.metrics, admitted);
    // Two of the five admitted jobs finished: the counter item's ACTIVE alone falls below zero.
    await counts.add('adm', { ACTIVE: -2, COMPLETED: 2 });

    expect(await counts.read('adm')).toEqual({ ACTIVE: 3, PAUSED: 0, COMPLETED: 2, FAILED: 0, CANCELLED: 0 });
    expect(await counts.read(ALL_TENANTS)).toMatchObject({ ACTIVE: 5, COMPLETED: 2 });
  });

  it('sums more tenants than one BatchGetItem holds', async () => {
    const many = Array.from({ length: 130 }, (_, i) => `many-${i}`);
    for (const tenant of many) await jobCounts.shift(tenant, undefined, 'COMPLETED');
    const counts = new DynamoJobStatusCounts(aws.documents, aws.resources.tables.metrics, tenantsNamed(many));
    expect((await counts.read(ALL_TENANTS)).COMPLETED).toBe(130);
  });
});

describe('scanner heartbeats', () => {
  it('keeps the latest pass of every shard', async () => {
    const beat = (shard: string, at: number) => ({ shard, at, durationMs: 12, jobsFound: 1, runsCreated: 2, lagMs: 0 });
    await heartbeats.beat(Array.from({ length: 30 }, (_, i) => beat(`due#${String(i).padStart(2, '0')}`, 1)));
    await heartbeats.beat([beat('due#00', 2)]);

    const read = await heartbeats.read();
    expect(read).toHaveLength(30);
    expect(read.find((b) => b.shard === 'due#00')).toEqual(beat('due#00', 2));
  });
});

describe('dispatch intents', () => {
  it('finds a shard’s intents due by `until`, oldest first, and forgets a cleared one', async () => {
    const intents = new DynamoDispatchIntents(aws.documents, aws.resources.tables.metrics);
    const config = { shardCount: 1, sweepGraceMs: 60_000 };
    const page = (id: string, now: number, jobs: number) =>
      intentOf(
        Array.from({ length: jobs }, (_, i) => ({ tenantId: 'it', jobId: `01JOB${id}${i}`, scheduledFor: now + i })),
        now,
        config,
        id,
      );
    const later = page('later', 2_000, 100);
    const earlier = page('earlier', 1_000, 3);
    // Racing scanners: another intent written in the same millisecond.
    const twin = page('twin', 1_000, 1);
    for (const intent of [later, earlier, twin]) await intents.record(intent);

    expect(await intents.findDue(earlier.shard, 61_000, 10)).toEqual(
      [earlier, twin].sort((a, b) => a.id.localeCompare(b.id)),
    );
    expect((await intents.findDue(earlier.shard, 62_000, 10)).map((i) => i.id)).toEqual(['earlier', 'twin', 'later']);
    expect(await intents.findDue(earlier.shard, 62_000, 1)).toHaveLength(1);
    expect(await intents.findDue(earlier.shard, 60_999, 10)).toEqual([]);
    expect(await intents.findDue('due#99', 62_000, 10)).toEqual([]);

    await intents.clear(earlier);
    await intents.clear(earlier);
    expect((await intents.findDue(earlier.shard, 62_000, 10)).map((i) => i.id)).toEqual(['twin', 'later']);
  });
});

/** Tenants with no job counted at admission: the all-tenants read sums their counter items alone. */
function tenantsNamed(ids: string[]) {
  return { of: async () => 0, all: async () => new Map(ids.map((id) => [id, 0])) };
}
