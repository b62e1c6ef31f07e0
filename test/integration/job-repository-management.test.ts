/** The repository methods behind job management, against DynamoDB Local. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_READS_PER_PAGE } from '#adapters/dynamodb/filtered-query';
import { DynamoJobRepository } from '#adapters/dynamodb/job-repository';
import { DynamoRunRepository } from '#adapters/dynamodb/run-repository';
import { ValidationError } from '#core/errors';
import { parseCreateJob } from '#core/job-input';
import type { StoredJob } from '#core/ports';
import { newRun } from '#core/use-cases/new-run';
import { type EmulatedAws, startEmulatedAws } from '../support/emulated-aws.ts';

const NOW = Date.parse('2026-06-01T12:00:00Z');
let aws: EmulatedAws;
let jobs: DynamoJobRepository;
let runs: DynamoRunRepository;

beforeAll(async () => {
  aws = await startEmulatedAws();
  jobs = new DynamoJobRepository(aws.documents, aws.resources.tables.jobs);
  runs = new DynamoRunRepository(aws.documents, aws.resources.tables.runs, 4);
});
afterAll(() => aws?.stop());

function job(tenantId: string, jobId: string, overrides: Partial<StoredJob> = {}): StoredJob {
  const fields = parseCreateJob(
    { target: { url: 'https://example.com/hook' }, schedule: { type: 'interval', everySeconds: 60 } },
    NOW,
  );
  return {
    tenantId,
    jobId,
    ...fields,
    status: 'ACTIVE',
    version: 1,
    createdAt: NOW,
    updatedAt: NOW,
    occurrenceCount: 0,
    nextFireAt: NOW,
    dueShard: 'due#02',
    ...overrides,
  };
}

describe('listing a tenant’s jobs', () => {
  const tenant = 'tenant-list';
  beforeAll(async () => {
    await jobs.create(job(tenant, '01A', { name: 'report-a' }));
    await jobs.create(job(tenant, '01B', { name: 'cleanup', status: 'PAUSED' }));
    await jobs.create(job(tenant, '01C', { name: 'cleanup-2', schedule: { type: 'once', at: NOW } }));
    await jobs.create(job(tenant, '01D', { name: 'cleanup-3' }));
    await jobs.create(job(tenant, '01E', { name: 'report-b' }));
    await jobs.create(job('tenant-other', '01A', { name: 'report-theirs' }));
  });

  it('returns only the tenant’s jobs, in job-id order', async () => {
    const page = await jobs.listByTenant(tenant, { limit: 10 });

    expect(page.items.map((j) => j.jobId)).toEqual(['01A', '01B', '01C', '01D', '01E']);
    expect(page.cursor).toBeUndefined();
  });

  it('filters by status, schedule type and name prefix', async () => {
    const paused = await jobs.listByTenant(tenant, { limit: 10, status: 'PAUSED' });
    const once = await jobs.listByTenant(tenant, { limit: 10, type: 'once' });
    const cleanupActive = await jobs.listByTenant(tenant, { limit: 10, name: 'cleanup', status: 'ACTIVE' });

    expect(paused.items.map((j) => j.jobId)).toEqual(['01B']);
    expect(once.items.map((j) => j.jobId)).toEqual(['01C']);
    expect(cleanupActive.items.map((j) => j.jobId)).toEqual(['01C', '01D']);
  });

  it('fills a filtered page past non-matching jobs, and returns a cursor while more remain', async () => {
    const first = await jobs.listByTenant(tenant, { limit: 1, name: 'report' });
    const second = await jobs.listByTenant(tenant, { limit: 1, name: 'report', cursor: first.cursor as string });
    const third = await jobs.listByTenant(tenant, { limit: 1, name: 'report', cursor: second.cursor as string });

    expect(first.items.map((j) => j.jobId)).toEqual(['01A']);
    expect(first.cursor).toBeDefined();
    expect(second.items.map((j) => j.jobId)).toEqual(['01E']); // read past 01B, 01C, 01D
    expect(third.items).toEqual([]);
    expect(third.cursor).toBeUndefined();
  });

  it('returns a short page with a cursor when the read budget runs out before a match', async () => {
    const sparse = 'tenant-sparse';
    for (let i = 0; i < MAX_READS_PER_PAGE + 1; i++) await jobs.create(job(sparse, `01${i}`, { name: `n${i}` }));

    const page = await jobs.listByTenant(sparse, { limit: 1, name: `n${MAX_READS_PER_PAGE}` });
    const next = await jobs.listByTenant(sparse, {
      limit: 1,
      name: `n${MAX_READS_PER_PAGE}`,
      cursor: page.cursor as string,
    });

    expect(page.items).toEqual([]);
    expect(page.cursor).toBeDefined();
    expect(next.items.map((j) => j.name)).toEqual([`n${MAX_READS_PER_PAGE}`]);
  });

  it('refuses another tenant’s cursor', async () => {
    const theirs = await jobs.listByTenant('tenant-other', { limit: 1 });
    const mine = await jobs.listByTenant(tenant, { limit: 1 });

    await expect(jobs.listByTenant('tenant-other', { limit: 1, cursor: mine.cursor as string })).rejects.toThrow(
      ValidationError,
    );
    expect(theirs.items).toHaveLength(1);
  });
});

describe('replacing a job', () => {
  it('writes the whole job when the version matches, removing what it lacks from the due-index', async () => {
    const stored = job('tenant-replace', '01R');
    await jobs.create(stored);
    const { nextFireAt: _next, dueShard: _shard, ...withoutDue } = stored;

    const replaced = await jobs.replace({ ...withoutDue, status: 'PAUSED', version: 2, pausedAt: NOW }, 1);

    expect(replaced).toBe(true);
    expect(await jobs.get('tenant-replace', '01R')).toEqual({
      ...withoutDue,
      status: 'PAUSED',
      version: 2,
      pausedAt: NOW,
    });
    expect((await jobs.findDue('due#02', NOW + 1, 100)).map((j) => j.jobId)).not.toContain('01R');
  });

  it('refuses a stale version and a job that does not exist', async () => {
    const stored = job('tenant-replace', '01S');
    await jobs.create(stored);

    expect(await jobs.replace({ ...stored, name: 'late', version: 2 }, 0)).toBe(false);
    expect(await jobs.replace(job('tenant-replace', '01MISSING'), 1)).toBe(false);
    expect(await jobs.get('tenant-replace', '01S')).toEqual(stored);
    expect(await jobs.get('tenant-replace', '01MISSING')).toBeUndefined();
  });
});

describe('the run history and trigger keys of a job', () => {
  const owner = { tenantId: 'tenant-runs', jobId: '01JOB' };
  beforeAll(async () => {
    for (const offset of [0, 1_000, 2_000, 3_000]) await runs.createIfAbsent(newRun(owner, NOW + offset, 1, NOW, 7));
    await runs.claim(
      { ...owner, scheduledFor: NOW, attempt: 1 },
      { owner: 'e', expiresAt: NOW + 60_000, now: NOW, takeOverExpired: true },
    );
    await runs.bindTriggerKey(owner, 'a-key', NOW + 500, NOW, Math.floor(NOW / 1000) + 3600);
  });

  it('narrows the history to [from, to] and a status, newest first, and never lists trigger keys', async () => {
    const all = await runs.listByJob(owner.tenantId, owner.jobId, { limit: 10 });
    const range = await runs.listByJob(owner.tenantId, owner.jobId, { limit: 10, from: NOW + 1_000, to: NOW + 2_000 });
    const queued = await runs.listByJob(owner.tenantId, owner.jobId, { limit: 10, status: 'QUEUED', to: NOW + 1_000 });

    expect(all.items.map((r) => r.scheduledFor - NOW)).toEqual([3_000, 2_000, 1_000, 0]);
    expect(range.items.map((r) => r.scheduledFor - NOW)).toEqual([2_000, 1_000]);
    expect(queued.items.map((r) => r.scheduledFor - NOW)).toEqual([1_000]);
  });

  it('pages a status-filtered history with a cursor', async () => {
    const first = await runs.listByJob(owner.tenantId, owner.jobId, { limit: 2, status: 'QUEUED' });
    const second = await runs.listByJob(owner.tenantId, owner.jobId, {
      limit: 2,
      status: 'QUEUED',
      cursor: first.cursor as string,
    });

    expect(first.items.map((r) => r.scheduledFor - NOW)).toEqual([3_000, 2_000]);
    expect(second.items.map((r) => r.scheduledFor - NOW)).toEqual([1_000]);
  });

  it('discards a QUEUED run but not one an executor has claimed', async () => {
    const discarded = await runs.discardQueued({ ...owner, scheduledFor: NOW + 3_000, attempt: 1 });
    const claimed = await runs.discardQueued({ ...owner, scheduledFor: NOW, attempt: 1 });

    expect(discarded).toBe(true);
    expect(claimed).toBe(false);
    expect(await runs.get({ ...owner, scheduledFor: NOW + 3_000, attempt: 1 })).toBeUndefined();
    expect((await runs.get({ ...owner, scheduledFor: NOW, attempt: 1 }))?.status).toBe('RUNNING');
  });

  it('binds a trigger key to the first time given, until it expires', async () => {
    const again = await runs.bindTriggerKey(owner, 'a-key', NOW + 9_000, NOW + 1_000, Math.floor(NOW / 1000) + 3600);
    const otherJob = await runs.bindTriggerKey({ ...owner, jobId: '01OTHER' }, 'a-key', NOW + 9_000, NOW, 0);
    const afterExpiry = await runs.bindTriggerKey(owner, 'a-key', NOW + 7_200_000, NOW + 7_200_000, 0);

    expect(again).toBe(NOW + 500);
    expect(otherJob).toBe(NOW + 9_000);
    expect(afterExpiry).toBe(NOW + 7_200_000);
  });

  it('keeps trigger keys out of the previous-run lookup', async () => {
    const previous = await runs.previous({ ...owner, scheduledFor: NOW + 9_999_999, attempt: 1 });

    expect(previous?.scheduledFor).toBe(NOW + 2_000);
  });
});

describe('a whole-job write racing the in-flight marker of overlap: forbid', () => {
  const tenant = 'tenant-marker';
  const marker = (runId: string) => ({ scheduledFor: NOW, runId, until: NOW + 60_000 });
  const markerOf = async (jobId: string) =>
    ((await jobs.get(tenant, jobId)) as (StoredJob & { inFlight?: unknown }) | undefined)?.inFlight;

  it('does not drop a marker taken after the job was read, and keeps it on the retried write', async () => {
    await jobs.create(job(tenant, '01M1'));
    const read = (await jobs.get(tenant, '01M1')) as StoredJob;
    expect((await jobs.takeInFlight(tenant, '01M1', marker('run-a'), NOW)).taken).toBe(true);

    expect(await jobs.replace({ ...read, name: 'renamed', version: read.version + 1 }, read.version)).toBe(false);
    expect(await markerOf('01M1')).toEqual(marker('run-a'));

    const fresh = (await jobs.get(tenant, '01M1')) as StoredJob;
    expect(await jobs.replace({ ...fresh, name: 'renamed', version: fresh.version + 1 }, fresh.version)).toBe(true);
    expect(await jobs.get(tenant, '01M1')).toMatchObject({ name: 'renamed', inFlight: marker('run-a') });
  });

  it('does not put back a marker released after the job was read', async () => {
    await jobs.create(job(tenant, '01M2'));
    await jobs.takeInFlight(tenant, '01M2', marker('run-b'), NOW);
    const read = (await jobs.get(tenant, '01M2')) as StoredJob;
    expect(await jobs.releaseInFlight(tenant, '01M2', NOW)).toBe(true);

    expect(await jobs.replace({ ...read, name: 'renamed', version: read.version + 1 }, read.version)).toBe(false);
    expect(await markerOf('01M2')).toBeUndefined();
  });
});
