/** The metrics table adapters against DynamoDB Local: count-once aggregates, job counters, heartbeats. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoJobStatusCounts } from '#adapters/dynamodb/job-status-counts';
import { DynamoRunAggregates } from '#adapters/dynamodb/run-aggregates';
import { DynamoScannerHeartbeats } from '#adapters/dynamodb/scanner-heartbeats';
import { bucketOf } from '#core/metrics/lag-histogram';
import { ALL_TENANTS } from '#core/metrics/ports';
import { minuteOf, type RunSample } from '#core/metrics/run-sample';
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
  jobCounts = new DynamoJobStatusCounts(aws.documents, table);
  heartbeats = new DynamoScannerHeartbeats(aws.documents, table);
});
afterAll(() => aws?.stop());

const sample = (tenantId: string, runId: string, over: Partial<RunSample> = {}): RunSample => ({
  tenantId,
  runId,
  status: 'SUCCEEDED',
  minute: MINUTE,
  retried: false,
  slaMissed: false,
  startLagBucket: bucketOf(20),
  durationBucket: bucketOf(300),
  ...over,
});

describe('run aggregates', () => {
  it('counts every run once however often it is added, per tenant and for all tenants', async () => {
    const batch = [
      sample('t1', 'r1'),
      sample('t1', 'r2', { status: 'FAILED', retried: true, startLagBucket: bucketOf(7_000) }),
      sample('t2', 'r3', { minute: MINUTE + 60_000, slaMissed: true }),
    ];

    expect(await aggregates.add(batch)).toBe(3);
    // A redelivered stream batch, partly overlapping with new runs.
    expect(await aggregates.add([...batch, sample('t1', 'r4', { status: 'DEAD_LETTERED' })])).toBe(1);
    expect(await aggregates.add(batch)).toBe(0);

    const t1 = await aggregates.read('t1', MINUTE, MINUTE + 60_000);
    expect(t1).toHaveLength(1);
    expect(t1[0]?.counts).toMatchObject({ SUCCEEDED: 1, FAILED: 1, DEAD_LETTERED: 1 });
    expect(t1[0]?.retried).toBe(1);
    expect(t1[0]?.startLag[bucketOf(20)]).toBe(2);
    expect(t1[0]?.startLag[bucketOf(7_000)]).toBe(1);
    const all = await aggregates.read(ALL_TENANTS, MINUTE, MINUTE + 60_000);
    expect(all.map((b) => [b.minute, b.counts.SUCCEEDED, b.slaMissed])).toEqual([
      [MINUTE, 1, 0],
      [MINUTE + 60_000, 1, 1],
    ]);
  });

  it('reads only the minutes asked for', async () => {
    await aggregates.add([sample('t3', 'r10', { minute: MINUTE - 120_000 }), sample('t3', 'r11')]);
    expect((await aggregates.read('t3', MINUTE - 60_000, MINUTE)).map((b) => b.minute)).toEqual([MINUTE]);
  });

  it('counts each run once when concurrent batches race on the same bucket', async () => {
    const runs = Array.from({ length: 40 }, (_, i) => sample('t4', `race-${i}`));
    const added = await Promise.all([
      aggregates.add(runs.slice(0, 25)),
      aggregates.add(runs.slice(15, 40)),
      aggregates.add(runs.slice(5, 30)),
    ]);
    expect(added.reduce((a, b) => a + b, 0)).toBe(40);
    const [bucket] = await aggregates.read('t4', MINUTE, MINUTE);
    expect(bucket?.counts.SUCCEEDED).toBe(40);
  });
});

describe('job-status counters', () => {
  it('moves a job between statuses for its tenant and for all tenants', async () => {
    await jobCounts.shift('jt', undefined, 'ACTIVE');
    await jobCounts.shift('jt', undefined, 'ACTIVE');
    await jobCounts.shift('jt', 'ACTIVE', 'PAUSED');
    await jobCounts.shift('jt', 'PAUSED', 'CANCELLED');
    await jobCounts.shift('other', undefined, 'ACTIVE');

    expect(await jobCounts.read('jt')).toEqual({ ACTIVE: 1, PAUSED: 0, COMPLETED: 0, FAILED: 0, CANCELLED: 1 });
    expect((await jobCounts.read(ALL_TENANTS)).ACTIVE).toBe(2);
    expect((await jobCounts.read('nobody')).ACTIVE).toBe(0);
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
