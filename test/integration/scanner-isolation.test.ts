/**
 * The scanner's blast radius against DynamoDB Local: a job the store refuses or the planner cannot
 * plan is quarantined while its shard goes on, a shard whose query fails is named by its heartbeat
 * (and so by health) while the others beat as usual, and the final occurrence of a recurring
 * schedule finishing before the advance still completes the job.
 */
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoJobRepository } from '#adapters/dynamodb/job-repository';
import { DynamoRunRepository } from '#adapters/dynamodb/run-repository';
import { DynamoScannerHeartbeats } from '#adapters/dynamodb/scanner-heartbeats';
import { allShards } from '#core/due-shard';
import { parseCreateJob } from '#core/job-input';
import type { Run } from '#core/model';
import type { JobRepository, StoredJob } from '#core/ports';
import { completeRun } from '#core/use-cases/complete-run';
import type { MaterializeDeps } from '#core/use-cases/materialize-occurrences';
import { scanDueJobs } from '#core/use-cases/scan-due-jobs';
import { heartbeatStateOf } from '#handlers/api/health-heartbeats';
import { type EmulatedAws, startEmulatedAws } from '../support/emulated-aws.ts';
import { RecordingDispatcher, RecordingNotices } from '../support/fakes/fakes.ts';

/** A stored time zone the runtime cannot resolve: planning the job throws, whatever the edge accepts today. */
const RETIRED_ZONE = 'Mars/Olympus_Mons';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const SHARDS = 4;
const HORIZON_MS = 90_000;
let aws: EmulatedAws;
let jobs: DynamoJobRepository;
let runs: DynamoRunRepository;

beforeAll(async () => {
  aws = await startEmulatedAws();
  jobs = new DynamoJobRepository(aws.documents, aws.resources.tables.jobs);
  runs = new DynamoRunRepository(aws.documents, aws.resources.tables.runs, SHARDS);
});
afterAll(() => aws?.stop());

function depsWith(jobRepository: JobRepository = jobs): MaterializeDeps & { dispatcher: RecordingDispatcher } {
  return {
    jobs: jobRepository,
    runs,
    dispatcher: new RecordingDispatcher(),
    config: { horizonMs: HORIZON_MS, retentionDays: 7, shardCount: SHARDS },
  };
}

/** A recurring job as stored, due at `nextFireAt` in `dueShard`; tests plant odd data through `overrides`. */
function storedJob(tenantId: string, jobId: string, overrides: Partial<StoredJob> = {}): StoredJob {
  const fields = parseCreateJob(
    {
      target: { url: 'https://example.com/hook' },
      schedule: { type: 'interval', everySeconds: 3600, startAt: new Date(NOW).toISOString() },
    },
    NOW,
  );
  return {
    tenantId,
    jobId,
    ...fields,
    status: 'ACTIVE',
    version: 1,
    createdAt: NOW - 60_000,
    updatedAt: NOW - 60_000,
    occurrenceCount: 0,
    nextFireAt: NOW,
    dueShard: 'due#00',
    ...overrides,
  };
}

async function runsOf(tenantId: string, jobId: string): Promise<Run[]> {
  return (await runs.listByJob(tenantId, jobId, { limit: 50 })).items;
}

describe('a job that cannot be planned or advanced', () => {
  const tenant = 'tenant-poison';

  it('is quarantined, visibly and out of the due-index, while the rest of its shard and the other shards fire', async () => {
    const healthy = ['01H1', '01H2', '01H3'].map((id, i) => storedJob(tenant, id, { dueShard: `due#0${i}` }));
    // Old data: a time zone the runtime's tz database no longer knows (zones are renamed and retired) ...
    const unplannable = storedJob(tenant, '01P1', {
      schedule: { type: 'cron', expression: '* * * * *', timezone: RETIRED_ZONE, startAt: NOW },
    });
    // ... and one the store refuses to advance (its version is not a number: a bug wrote it so).
    const unadvanceable = storedJob(tenant, '01P2', { version: '1' as unknown as number });
    for (const job of [...healthy, unplannable, unadvanceable]) await jobs.create(job);

    const result = await scanDueJobs(depsWith(), NOW);

    expect(result.perShard.map((pass) => pass.error)).toEqual([undefined, undefined, undefined, undefined]);
    expect(result.quarantined.map((job) => job.jobId).sort()).toEqual(['01P1', '01P2']);
    for (const job of healthy) expect((await runsOf(tenant, job.jobId)).map((run) => run.scheduledFor)).toEqual([NOW]);
    const planned = await jobs.get(tenant, '01P1');
    expect(planned).toMatchObject({ nextFireAt: NOW, version: 2, quarantine: { at: NOW } });
    expect(planned?.quarantine?.reason).toContain('Invalid time zone');
    expect(planned?.dueShard).toBeUndefined();
    const refused = await jobs.get(tenant, '01P2');
    expect(refused?.quarantine?.reason).toContain('ValidationException');
    expect(refused).toMatchObject({ version: 2, occurrenceCount: 0 });
    expect((await runsOf(tenant, '01P2')).map((run) => run.status)).toEqual(['QUEUED']);
    // Their shard now holds only the healthy job, at its next slot.
    expect((await jobs.findDue('due#00', NOW + 1e12, 10)).map((job) => [job.jobId, job.nextFireAt])).toEqual([
      ['01H1', NOW + 3_600_000],
    ]);
  });

  it('is quarantined when its stored item cannot even be read, instead of failing its shard on every pass', async () => {
    const healthy = storedJob(tenant, '01H4', { dueShard: 'due#03' });
    await jobs.create(healthy);
    // A number no JS number holds, in an attribute the due-index projects: the page cannot be unmarshalled whole.
    const unreadable = marshall(storedJob(tenant, '01P4', { dueShard: 'due#03' }), { removeUndefinedValues: true });
    unreadable.occurrenceCount = { N: '12345678901234567890.5' };
    await aws.dynamodb.send(new PutItemCommand({ TableName: aws.resources.tables.jobs, Item: unreadable }));

    const result = await scanDueJobs(depsWith(), NOW);

    expect(result.perShard.find((pass) => pass.shard === 'due#03')?.error).toBeUndefined();
    expect(result.quarantined.map((job) => job.jobId)).toEqual(['01P4']);
    expect((await runsOf(tenant, '01H4')).map((run) => run.scheduledFor)).toEqual([NOW]);
    const raw = await aws.dynamodb.send(
      new GetItemCommand({ TableName: aws.resources.tables.jobs, Key: marshall({ tenantId: tenant, jobId: '01P4' }) }),
    );
    expect(raw.Item?.dueShard).toBeUndefined();
    expect(raw.Item?.version).toEqual({ N: '2' });
    expect(raw.Item?.quarantine?.M?.reason?.S).toContain('cannot be read');
    expect((await jobs.findDue('due#03', NOW + 1e12, 10)).map((job) => job.jobId)).toEqual(['01H4']);
  });

  it('is not quarantined when it moved on meanwhile (the quarantine is conditioned on its version)', async () => {
    const job = storedJob(tenant, '01P3', { dueShard: 'due#03' });
    await jobs.create(job);

    expect(await jobs.quarantine({ ...job, version: job.version - 1 }, 'stale decision', NOW)).toBe(false);
    expect(await jobs.get(tenant, job.jobId)).toEqual(job);
    expect(await jobs.quarantine(job, 'its own data', NOW)).toBe(true);
    expect(await jobs.get(tenant, job.jobId)).toMatchObject({ quarantine: { reason: 'its own data', at: NOW } });
  });
});

describe('a shard whose query fails', () => {
  it('writes a heartbeat with its error while every other shard beats as usual; health names that shard', async () => {
    const broken = 'due#02';
    const failing = Object.create(jobs) as DynamoJobRepository;
    failing.findDue = (shard, until, limit) =>
      shard === broken
        ? Promise.reject(
            Object.assign(new Error('Throughput exceeds the current capacity'), { name: 'ThrottlingException' }),
          )
        : jobs.findDue(shard, until, limit);
    await jobs.create(storedJob('tenant-shards', '01S1', { dueShard: 'due#01' }));
    const heartbeats = new DynamoScannerHeartbeats(aws.documents, aws.resources.tables.metrics);
    const at = NOW + 3_600_000;

    const result = await scanDueJobs(depsWith(failing), at);
    await heartbeats.beat(result.perShard.map((pass) => ({ ...pass, at })));

    const beats = await heartbeats.read();
    expect(beats.map((beat) => beat.shard).sort()).toEqual(allShards(SHARDS));
    expect(beats.find((beat) => beat.shard === broken)?.error).toContain('ThrottlingException');
    expect(beats.filter((beat) => beat.error).map((beat) => beat.shard)).toEqual([broken]);
    expect(heartbeatStateOf(beats, at + 1_000, 180_000)).toEqual({ state: 'failing', failingShards: [broken] });
    expect((await runsOf('tenant-shards', '01S1')).length).toBeGreaterThan(0);

    // The shard recovers: its next heartbeat has no error, and health is ok again.
    const next = await scanDueJobs(depsWith(), at + 60_000);
    await heartbeats.beat(next.perShard.map((pass) => ({ ...pass, at: at + 60_000 })));
    expect(heartbeatStateOf(await heartbeats.read(), at + 61_000, 180_000)).toEqual({
      state: 'ok',
      failingShards: [],
    });
  });
});

describe('the final occurrence of a recurring schedule', () => {
  it('finishing before the advance is written still ends the job COMPLETED', async () => {
    const tenant = 'tenant-final';
    const first = NOW + 120_000;
    const job = storedJob(tenant, '01F1', {
      schedule: { type: 'interval', everySeconds: 10, startAt: first, maxRuns: 2 },
      nextFireAt: first,
      dueShard: 'due#01',
    });
    await jobs.create(job);
    const notices = new RecordingNotices();
    const completions: string[] = [];
    // The race: the final run is sent before the advance, and here it runs and completes first.
    const racing = Object.create(jobs) as DynamoJobRepository;
    racing.advance = async (advanced, change) => {
      const finalRun = (await runsOf(tenant, advanced.jobId)).find((run) => run.finalOccurrence);
      if (change.nextFireAt === undefined && finalRun) {
        const lease = { owner: 'executor-1', expiresAt: NOW + 200_000, now: NOW + 130_000, takeOverExpired: true };
        await runs.claim(finalRun, lease);
        const outcome = { status: 'SUCCEEDED' as const, completedAt: NOW + 130_100, httpStatus: 200 };
        await runs.complete(finalRun, 'executor-1', outcome);
        const ended = { ...finalRun, ...outcome };
        completions.push(await completeRun({ ...depsWith(), notices }, ended, NOW + 130_200));
      }
      return jobs.advance(advanced, change);
    };

    await scanDueJobs(depsWith(racing), NOW + 60_000);

    expect(completions).toEqual(['unchanged']);
    const after = await jobs.get(tenant, job.jobId);
    expect(after).toMatchObject({ status: 'COMPLETED', occurrenceCount: 2 });
    expect(after?.nextFireAt).toBeUndefined();
  });
});
