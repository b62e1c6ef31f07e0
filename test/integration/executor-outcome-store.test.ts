/**
 * The executor's writes against DynamoDB Local: an outcome DynamoDB refuses whole is recorded in
 * its reduced form (one call, never RUNNING), a claim is given back only by its holder, and the
 * in-flight marker of `overlap: "forbid"` is taken, kept and released conditionally.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoJobRepository } from '#adapters/dynamodb/job-repository';
import { DynamoRunRepository } from '#adapters/dynamodb/run-repository';
import { HttpTargetInvoker } from '#adapters/http/invoker';
import { systemClock } from '#adapters/system-clock';
import { OutcomeRejectedError } from '#core/errors';
import type { Job } from '#core/model';
import type { HttpResult } from '#core/ports';
import { isTerminal } from '#core/run-state';
import { fixedSigningKeys, newSigningSecret } from '#core/signing';
import { executeRun } from '#core/use-cases/execute-run';
import { newRun } from '#core/use-cases/new-run';
import { type EmulatedAws, startEmulatedAws } from '../support/emulated-aws.ts';
import { jobFixture } from '../support/job-fixture.ts';

let aws: EmulatedAws;
let jobs: DynamoJobRepository;
let runs: DynamoRunRepository;
let target: Server;
let targetUrl: string;
let calls = 0;

beforeAll(async () => {
  aws = await startEmulatedAws();
  jobs = new DynamoJobRepository(aws.documents, aws.resources.tables.jobs);
  runs = new DynamoRunRepository(aws.documents, aws.resources.tables.runs, 4);
  // Half a megabyte of answer: more than a DynamoDB item may hold.
  target = createServer((_req, res) => {
    calls++;
    res.statusCode = 500;
    res.end('e'.repeat(500_000));
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/big`;
}, 60_000);
afterAll(async () => {
  target?.closeAllConnections();
  target?.close();
  await aws?.stop();
});

async function plantJobAndRun(jobId: string, due: number, overrides: Partial<Job> = {}) {
  const job = jobFixture(due, {
    tenantId: 'tenant-a',
    jobId,
    target: { url: targetUrl, method: 'POST', headers: {} },
    timeoutSeconds: 5,
    ...overrides,
  });
  await jobs.create(job);
  const run = newRun(job, due, 1, due - 1_000, 7);
  await runs.createIfAbsent(run);
  const message = { tenantId: job.tenantId, jobId, scheduledFor: due, attempt: 1, runId: run.runId };
  return { job, run, message };
}

describe('an outcome DynamoDB refuses whole', () => {
  it('is recorded in its reduced form: the run ends, the target is called once', async () => {
    const due = Date.now();
    const { message } = await plantJobAndRun('J-too-big', due);
    // An excerpt bound set beyond what an item holds (RESPONSE_EXCERPT_BYTES is the operator's).
    const deps = {
      jobs,
      runs,
      invoker: new HttpTargetInvoker(450_000, { rules: { allowLoopback: true } }),
      signingKeys: fixedSigningKeys([newSigningSecret()]),
      clock: systemClock,
      random: () => 0.5,
      config: { leaseMarginMs: 5_000, owner: 'exec-1' },
    };
    const before = calls;

    const result = await executeRun(deps, message);
    // The message comes back once the lease has run out: the run is finished, not taken over.
    const afterLease = { now: () => Date.now() + 60_000, sleepUntil: async () => undefined };
    const again = await executeRun(
      { ...deps, clock: afterLease, config: { ...deps.config, owner: 'exec-2' } },
      message,
    );

    expect(result.kind).toBe('called');
    expect(again.kind).toBe('already-finished');
    expect(calls - before).toBe(1);
    const stored = await runs.get(message);
    expect(stored).toMatchObject({ status: 'FAILED', httpStatus: 500, errorType: 'http_5xx' });
    expect(stored?.outcomeReduced).toMatch(/^the full outcome could not be stored: .*size/i);
    expect(stored?.responseExcerpt).toBeUndefined();
    expect(stored?.nextAttemptAt).toBeGreaterThan(due);
  }, 30_000);

  it('is told apart from a transient failure: a value the marshaller refuses is a rejection', async () => {
    const due = Date.now();
    const { message } = await plantJobAndRun('J-unmarshallable', due);
    await runs.claim(message, { owner: 'exec-1', expiresAt: due + 60_000, now: due, takeOverExpired: true });

    const write = runs.complete(message, 'exec-1', { status: 'SUCCEEDED', completedAt: due, durationMs: 2 ** 60 });

    await expect(write).rejects.toBeInstanceOf(OutcomeRejectedError);
    expect((await runs.get(message))?.status).toBe('RUNNING');
  });
});

describe('any target answer', () => {
  const hostileNumber = fc.oneof(
    fc.double(),
    fc.integer(),
    fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -1, 1e300, 2 ** 60, 999, 600),
  );
  const hostileText = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.string({ unit: 'binary', maxLength: 3_000 }),
    fc.constant('\ud800'),
    fc.constant('b'.repeat(420_000)),
  );
  const hostileResult: fc.Arbitrary<Omit<HttpResult, 'startedAt'> & { startedAt?: number }> = fc.oneof(
    fc.record({
      kind: fc.constant('response' as const),
      status: hostileNumber,
      bodyExcerpt: hostileText,
      durationMs: hostileNumber,
      startedAt: hostileNumber,
      retryAfterSeconds: fc.option(hostileNumber, { nil: undefined }),
    }),
    fc.record({
      kind: fc.constant('error' as const),
      errorType: fc.constantFrom('timeout' as const, 'connection' as const),
      message: hostileText,
      durationMs: hostileNumber,
      startedAt: hostileNumber,
    }),
  );

  it('ends its run in DynamoDB, whole or reduced, after exactly one call, and never throws', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(hostileResult, async (answer) => {
        const due = Date.now();
        const { message } = await plantJobAndRun(`J-hostile-${n++}`, due);
        let invoked = 0;
        const deps = {
          jobs,
          runs,
          invoker: {
            invoke: async () => {
              invoked++;
              return answer as HttpResult;
            },
          },
          signingKeys: fixedSigningKeys([newSigningSecret()]),
          clock: systemClock,
          random: () => 0.5,
          config: { leaseMarginMs: 5_000, owner: 'exec-1' },
        };

        const result = await executeRun(deps, message);

        expect(result.kind).toBe('called');
        expect(invoked).toBe(1);
        const stored = await runs.get(message);
        expect(stored && isTerminal(stored.status)).toBe(true);
      }),
      { numRuns: 40 },
    );
  }, 60_000);
});

describe('giving a claim back', () => {
  it('puts the run back to QUEUED only for the owner of that very lease', async () => {
    const due = Date.now();
    const { message } = await plantJobAndRun('J-release', due);
    await runs.claim(message, { owner: 'exec-1', expiresAt: due + 60_000, now: due, takeOverExpired: true });

    expect(await runs.release(message, 'exec-2', due + 60_000)).toBe(false);
    expect(await runs.release(message, 'exec-1', due + 59_999)).toBe(false);
    expect(await runs.release(message, 'exec-1', due + 60_000)).toBe(true);

    const run = await runs.get(message);
    expect(run?.status).toBe('QUEUED');
    expect(run?.leaseOwner).toBeUndefined();
    expect(run?.leaseExpiresAt).toBeUndefined();
    // QUEUED again, so back in the sweep index: it never depends on its message alone.
    const swept = async () =>
      (await Promise.all(['due#00', 'due#01', 'due#02', 'due#03'].map((shard) => runs.findSweepable(shard, 9e12, 100))))
        .flat()
        .filter((r) => r.runId === message.runId);
    expect(await swept()).toHaveLength(1);
    expect(
      (await runs.claim(message, { owner: 'exec-3', expiresAt: due + 1, now: due, takeOverExpired: true })).claimed,
    ).toBe(true);
    expect(await swept()).toEqual([]);
  });
});

describe('the in-flight marker', () => {
  const NOW = Date.parse('2026-06-01T12:00:00Z');

  it('is held by one occurrence until it expires; its own retry may take it again', async () => {
    await jobs.create(jobFixture(NOW, { tenantId: 'tenant-a', jobId: 'J-marker' }));
    const held = { scheduledFor: NOW, runId: 'R1', until: NOW + 10_000 };

    expect(await jobs.takeInFlight('tenant-a', 'J-marker', held, NOW)).toEqual({ taken: true });
    expect(
      await jobs.takeInFlight(
        'tenant-a',
        'J-marker',
        { scheduledFor: NOW + 2_000, runId: 'R2', until: NOW + 12_000 },
        NOW + 2_000,
      ),
    ).toEqual({ taken: false, holder: held });
    // The retry of the same occurrence extends it.
    const extended = { scheduledFor: NOW, runId: 'R1-2', until: NOW + 30_000 };
    expect(await jobs.takeInFlight('tenant-a', 'J-marker', extended, NOW + 11_000)).toEqual({ taken: true });
    // Expired: another occurrence takes it.
    const next = { scheduledFor: NOW + 40_000, runId: 'R3', until: NOW + 50_000 };
    expect(await jobs.takeInFlight('tenant-a', 'J-marker', next, NOW + 30_001)).toEqual({ taken: true });
    // Only the holder's occurrence releases it.
    expect(await jobs.releaseInFlight('tenant-a', 'J-marker', NOW)).toBe(false);
    expect(await jobs.releaseInFlight('tenant-a', 'J-marker', NOW + 40_000)).toBe(true);
    expect(await jobs.takeInFlight('tenant-a', 'J-marker', held, NOW + 40_001)).toEqual({ taken: true });
  });

  it('is never taken on a job that does not exist', async () => {
    const marker = { scheduledFor: NOW, runId: 'R', until: NOW + 1 };
    expect(await jobs.takeInFlight('tenant-a', 'J-none', marker, NOW)).toEqual({ taken: false });
    expect(await jobs.get('tenant-a', 'J-none')).toBeUndefined();
  });
});
