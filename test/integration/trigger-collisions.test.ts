/**
 * Manual triggers racing in one millisecond, through the trigger use case on DynamoDB Local: each
 * Idempotency-Key gets its own run, however many requests bind the same instant at once, and all
 * requests with one key get one run. Plus the repository pieces this relies on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoJobRepository } from '#adapters/dynamodb/job-repository';
import { DynamoRunRepository } from '#adapters/dynamodb/run-repository';
import { parseCreateJob } from '#core/job-input';
import type { StoredJob } from '#core/ports';
import { newRun } from '#core/use-cases/new-run';
import { triggerJob } from '#core/use-cases/trigger-job';
import { type EmulatedAws, startEmulatedAws } from '../support/emulated-aws.ts';
import { RecordingDispatcher } from '../support/fakes/fakes.ts';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const TENANT = 'tenant-trigger';
let aws: EmulatedAws;
let jobs: DynamoJobRepository;
let runs: DynamoRunRepository;

beforeAll(async () => {
  aws = await startEmulatedAws();
  jobs = new DynamoJobRepository(aws.documents, aws.resources.tables.jobs);
  runs = new DynamoRunRepository(aws.documents, aws.resources.tables.runs, 4);
});
afterAll(() => aws?.stop());

async function createJob(jobId: string): Promise<StoredJob> {
  const fields = parseCreateJob(
    {
      target: { url: 'https://example.com/hook' },
      schedule: { type: 'interval', everySeconds: 3600, startAt: new Date(NOW + 3_600_000).toISOString() },
    },
    NOW,
  );
  const job: StoredJob = {
    tenantId: TENANT,
    jobId,
    ...fields,
    status: 'ACTIVE',
    version: 1,
    createdAt: NOW,
    updatedAt: NOW,
    occurrenceCount: 0,
  };
  await jobs.create(job);
  return job;
}

function triggerDeps() {
  const dispatcher = new RecordingDispatcher();
  return { deps: { jobs, runs, dispatcher, config: { retentionDays: 7 } }, dispatcher };
}

describe('triggers racing in one millisecond', () => {
  it('give every Idempotency-Key its own run and call', async () => {
    const job = await createJob('01RACE');
    const { deps, dispatcher } = triggerDeps();
    const keys = Array.from({ length: 8 }, (_, i) => `key-${i}`);

    const results = await Promise.all(keys.map((key) => triggerJob(deps, TENANT, job.jobId, NOW, key)));

    expect(results.every((result) => !result.replayed)).toBe(true);
    expect(new Set(results.map((result) => result.run.runId)).size).toBe(keys.length);
    expect(results.map((result) => result.run.triggerKey).sort()).toEqual([...keys].sort());
    expect(new Set(dispatcher.sent.map((sent) => sent.message.runId)).size).toBe(keys.length);
    const stored = await runs.listByJob(TENANT, job.jobId, { limit: 100 });
    expect(stored.items).toHaveLength(keys.length);
  });

  it('give all requests with one key one run, alongside requests with other keys', async () => {
    const job = await createJob('01SAME');
    const { deps } = triggerDeps();
    const requests = ['a', 'b', 'a', 'c', 'a', 'b'];

    const results = await Promise.all(requests.map((key) => triggerJob(deps, TENANT, job.jobId, NOW, key)));

    const runOf = new Map<string, Set<string>>();
    for (const [i, key] of requests.entries()) {
      runOf.set(key, (runOf.get(key) ?? new Set()).add(results[i]?.run.runId as string));
    }
    expect([...runOf.values()].map((ids) => ids.size)).toEqual([1, 1, 1]);
    expect(new Set([...runOf.values()].flatMap((ids) => [...ids])).size).toBe(3);
    expect(results.filter((result) => !result.replayed)).toHaveLength(3);
    const stored = await runs.listByJob(TENANT, job.jobId, { limit: 100 });
    expect(stored.items).toHaveLength(3);
  });
});

describe('the repository pieces', () => {
  const owner = { tenantId: TENANT, jobId: '01PIECES' };

  it('moves a trigger key only from the time it is still bound to', async () => {
    const expiresAt = Math.floor(NOW / 1000) + 3600;
    await runs.bindTriggerKey(owner, 'k', NOW, NOW, expiresAt);

    const moved = await runs.bindTriggerKey(owner, 'k', NOW + 1, NOW, expiresAt, NOW);
    const stale = await runs.bindTriggerKey(owner, 'k', NOW + 1, NOW, expiresAt, NOW);
    const staleFurther = await runs.bindTriggerKey(owner, 'k', NOW + 2, NOW, expiresAt, NOW);

    expect(moved).toBe(NOW + 1);
    expect(stale).toBe(NOW + 1);
    expect(staleFurther).toBe(NOW + 1);
  });

  it('reads the latest runs up to a time, newest attempt first, never a trigger key', async () => {
    for (const [offset, attempt] of [
      [0, 1],
      [1_000, 1],
      [1_000, 2],
      [2_000, 1],
    ] as const) {
      await runs.createIfAbsent(newRun(owner, NOW + offset, attempt, NOW, 7));
    }

    const upTo = await runs.latestRuns(owner, NOW + 1_000, 2);
    const all = await runs.latestRuns(owner, Number.MAX_SAFE_INTEGER, 10);

    expect(upTo.map((run) => [run.scheduledFor - NOW, run.attempt])).toEqual([
      [1_000, 2],
      [1_000, 1],
    ]);
    expect(all).toHaveLength(4);
  });
});
