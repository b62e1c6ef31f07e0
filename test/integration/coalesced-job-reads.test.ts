import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoalescedJobReads, withCoalescedGets } from '#adapters/dynamodb/coalesced-job-reads';
import { DynamoJobRepository } from '#adapters/dynamodb/job-repository';
import type { Job } from '#core/model';
import { type EmulatedAws, startEmulatedAws } from '../support/emulated-aws.ts';
import { jobFixture } from '../support/job-fixture.ts';

const NOW = Date.parse('2026-06-01T12:00:00Z');
let aws: EmulatedAws;
let jobs: DynamoJobRepository;
/** Requests by command name, counted on a client of its own. */
const sent: string[] = [];
/** Each BatchGetItem's consistency and number of keys. */
const batches: Array<{ consistent: boolean; keys: number }> = [];
let counted: DynamoDBDocumentClient;

beforeAll(async () => {
  aws = await startEmulatedAws();
  jobs = new DynamoJobRepository(aws.documents, aws.resources.tables.jobs);
  counted = DynamoDBDocumentClient.from(aws.dynamodb, { marshallOptions: { removeUndefinedValues: true } });
  counted.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push(String(context.commandName));
      const items = (args.input as { RequestItems?: Record<string, { Keys: unknown[]; ConsistentRead?: boolean }> })
        .RequestItems;
      for (const read of Object.values(items ?? {}))
        batches.push({ consistent: read.ConsistentRead === true, keys: read.Keys.length });
      return next(args);
    },
    { step: 'initialize', name: 'countRequests' },
  );
  for (let i = 0; i < 130; i++) await jobs.create(job(`J-${i}`));
});
afterAll(() => aws?.stop());

function job(jobId: string): Job {
  return jobFixture(NOW, {
    tenantId: 'tenant-a',
    jobId,
    target: { url: `https://example.com/${jobId}`, method: 'POST', headers: {} },
  });
}

describe('coalesced job reads (the executor)', () => {
  it('reads the jobs asked for in the same turn in one BatchGetItem per 100, each answer its own job', async () => {
    const reads = new CoalescedJobReads(counted, aws.resources.tables.jobs);
    sent.length = 0;
    const ids = Array.from({ length: 130 }, (_, i) => `J-${i}`);
    const found = await Promise.all(ids.map((id) => reads.get('tenant-a', id)));
    expect(found.map((j) => j?.target.url)).toEqual(ids.map((id) => `https://example.com/${id}`));
    expect(sent).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand']);
  });

  it('answers undefined for a job that does not exist or belongs to another tenant, as get does', async () => {
    const reads = new CoalescedJobReads(counted, aws.resources.tables.jobs);
    const [missing, otherTenant, present] = await Promise.all([
      reads.get('tenant-a', 'J-none'),
      reads.get('tenant-b', 'J-1'),
      reads.get('tenant-a', 'J-1'),
    ]);
    expect(missing).toBeUndefined();
    expect(otherTenant).toBeUndefined();
    expect(present).toEqual(await jobs.get('tenant-a', 'J-1'));
  });

  it('asks for a key once however many wait for it, and gives each waiter its own copy', async () => {
    const reads = new CoalescedJobReads(counted, aws.resources.tables.jobs);
    sent.length = 0;
    const [a, b] = await Promise.all([reads.get('tenant-a', 'J-2'), reads.get('tenant-a', 'J-2')]);
    expect(sent).toEqual(['BatchGetItemCommand']);
    expect(a).toEqual(b);
    (a as Job).status = 'CANCELLED';
    expect(b?.status).toBe('ACTIVE');
  });

  it('reads eventually consistent (half the read units), and a job it does not find again strongly consistent', async () => {
    const reads = new CoalescedJobReads(counted, aws.resources.tables.jobs);
    batches.length = 0;
    await Promise.all([reads.get('tenant-a', 'J-3'), reads.get('tenant-a', 'J-5')]);
    expect(batches).toEqual([{ consistent: false, keys: 2 }]);

    batches.length = 0;
    // A job written a moment ago may not be on the replica the first read asked: never "missing" for it.
    const [found, missing] = await Promise.all([reads.get('tenant-a', 'J-3'), reads.get('tenant-a', 'J-none')]);
    expect(found?.jobId).toBe('J-3');
    expect(missing).toBeUndefined();
    expect(batches).toEqual([
      { consistent: false, keys: 2 },
      { consistent: true, keys: 1 },
    ]);
  });

  it("finds a job created just before its run is read, as a run-now create's executor does", async () => {
    const reads = new CoalescedJobReads(counted, aws.resources.tables.jobs);
    await jobs.create(job('J-new'));
    expect((await reads.get('tenant-a', 'J-new'))?.jobId).toBe('J-new');
  });

  it('fails every waiter of a request that fails, and only those', async () => {
    const broken = new CoalescedJobReads(counted, 'no-such-table');
    await expect(Promise.all([broken.get('tenant-a', 'J-1'), broken.get('tenant-a', 'J-4')])).rejects.toThrow();
    const reads = new CoalescedJobReads(counted, aws.resources.tables.jobs);
    expect((await reads.get('tenant-a', 'J-4'))?.jobId).toBe('J-4');
  });

  it('is the repository with get coalesced and every other method its own', async () => {
    const repository = withCoalescedGets(jobs, new CoalescedJobReads(counted, aws.resources.tables.jobs));
    sent.length = 0;
    await Promise.all([repository.get('tenant-a', 'J-5'), repository.get('tenant-a', 'J-6')]);
    expect(sent).toEqual(['BatchGetItemCommand']);
    const page = await repository.listByTenant('tenant-a', { limit: 2 });
    expect(page.items).toHaveLength(2);
  });
});
