/** Creates with an Idempotency-Key (core/use-cases/create-job-once.ts), on the in-memory ports. */
import { describe, expect, it } from 'vitest';
import { IdempotencyKeyReusedError, JobExistsError } from '#core/errors';
import { parseCreateJob } from '#core/job-input';
import type { Job } from '#core/model';
import { createJob } from '#core/use-cases/create-job';
import { CREATE_KEY_TTL_SECONDS, createJobOnce, requestFingerprint } from '#core/use-cases/create-job-once';
import { InMemoryCreateKeys } from '../../../support/fakes/in-memory-create-keys.ts';
import { iso, NOW, setup, TENANT } from './manage-fixtures.ts';

const BODY = { target: { url: 'https://example.com/hook' }, schedule: { type: 'once', at: iso(NOW + 3_600_000) } };

function world() {
  const base = setup();
  const createKeys = new InMemoryCreateKeys();
  const created: string[] = [];
  let reserved = 0;
  /** As the handler's admittedCreate: a reservation taken, given back when the create throws. */
  const create = async (jobId: string, now = NOW): Promise<Job> => {
    created.push(jobId);
    reserved += 1;
    try {
      return await createJob(base.deps, TENANT, parseCreateJob(BODY as never, now), now, jobId);
    } catch (error) {
      reserved -= 1;
      throw error;
    }
  };
  const once = (key: string, freshJobId: string, body: unknown = BODY, now = NOW) =>
    createJobOnce(
      { createKeys, jobs: base.jobs },
      TENANT,
      { key, fingerprint: requestFingerprint(body) },
      freshJobId,
      now,
      (jobId) => create(jobId, now),
    );
  return { ...base, createKeys, created, create, once, reserved: () => reserved };
}

describe('createJobOnce', () => {
  it('binds a new key to the fresh id and creates the job under it', async () => {
    const w = world();
    const { job, replayed } = await w.once('k1', 'JOB-A');
    expect(replayed).toBe(false);
    expect(job.jobId).toBe('JOB-A');
    expect(await w.jobs.get(TENANT, 'JOB-A')).toBeDefined();
    expect(w.createKeys.bindings.get(`${TENANT}/k1`)).toEqual({
      jobId: 'JOB-A',
      fingerprint: requestFingerprint(BODY),
      expiresAt: Math.floor(NOW / 1000) + CREATE_KEY_TTL_SECONDS,
    });
  });

  it('answers a retry with the stored job, replayed, without creating anything', async () => {
    const w = world();
    await w.once('k1', 'JOB-A');
    const retry = await w.once('k1', 'JOB-B');
    expect(retry.replayed).toBe(true);
    expect(retry.job.jobId).toBe('JOB-A');
    expect(w.created).toEqual(['JOB-A']);
    expect(await w.jobs.get(TENANT, 'JOB-B')).toBeUndefined();
  });

  it('refuses the key with another body before creating anything', async () => {
    const w = world();
    await w.once('k1', 'JOB-A');
    await expect(w.once('k1', 'JOB-B', { ...BODY, name: 'other' })).rejects.toBeInstanceOf(IdempotencyKeyReusedError);
    expect(w.created).toEqual(['JOB-A']);
  });

  it('creates the bound job when the key is bound and its job absent (the first request died)', async () => {
    const w = world();
    await w.createKeys.bind(TENANT, 'k1', { jobId: 'JOB-A', fingerprint: requestFingerprint(BODY) }, NOW, 2e9);
    const retry = await w.once('k1', 'JOB-B');
    expect(retry).toMatchObject({ replayed: false, job: { jobId: 'JOB-A' } });
    expect(w.created).toEqual(['JOB-A']);
  });

  it('answers the job the other request wrote when its own create loses the race, and gives its admission back', async () => {
    const w = world();
    await w.createKeys.bind(TENANT, 'k1', { jobId: 'JOB-A', fingerprint: requestFingerprint(BODY) }, NOW, 2e9);
    // The first request writes JOB-A between this request's binding and its create.
    const original = w.jobs.get.bind(w.jobs);
    let reads = 0;
    w.jobs.get = async (tenantId, jobId) => {
      if (reads++ === 0) {
        const absent = await original(tenantId, jobId);
        await createJob(w.deps, TENANT, parseCreateJob(BODY as never, NOW), NOW, 'JOB-A');
        return absent;
      }
      return original(tenantId, jobId);
    };
    const retry = await w.once('k1', 'JOB-B');
    expect(retry).toMatchObject({ replayed: true, job: { jobId: 'JOB-A' } });
    expect(w.created).toEqual(['JOB-A']);
    expect(w.reserved()).toBe(0);
  });

  it('passes any other failure of the create on, the key still bound for a retry', async () => {
    const w = world();
    const failing = createJobOnce(
      { createKeys: w.createKeys, jobs: w.jobs },
      TENANT,
      { key: 'k1', fingerprint: requestFingerprint(BODY) },
      'JOB-A',
      NOW,
      async () => {
        throw new Error('throttled');
      },
    );
    await expect(failing).rejects.toThrow('throttled');
    const retry = await w.once('k1', 'JOB-B');
    expect(retry).toMatchObject({ replayed: false, job: { jobId: 'JOB-A' } });
  });

  it('binds an expired key afresh', async () => {
    const w = world();
    await w.once('k1', 'JOB-A');
    const later = NOW + (CREATE_KEY_TTL_SECONDS + 1) * 1000;
    const { job, replayed } = await w.once('k1', 'JOB-B', BODY, later);
    expect(replayed).toBe(false);
    expect(job.jobId).toBe('JOB-B');
  });
});

describe('createJob under a given id', () => {
  it('refuses an id that exists (JobExistsError) and writes nothing else', async () => {
    const { deps, runs, jobs } = setup();
    const soon = { ...BODY, schedule: { type: 'once', at: iso(NOW + 1_000) } };
    await createJob(deps, TENANT, parseCreateJob(soon as never, NOW), NOW, 'JOB-A');
    const runsBefore = runs.all().length;
    const stored = await jobs.get(TENANT, 'JOB-A');
    await expect(
      createJob(deps, TENANT, parseCreateJob(soon as never, NOW + 5), NOW + 5, 'JOB-A'),
    ).rejects.toBeInstanceOf(JobExistsError);
    expect(runs.all()).toHaveLength(runsBefore);
    expect(await jobs.get(TENANT, 'JOB-A')).toEqual(stored);
  });
});

describe('requestFingerprint', () => {
  it('ignores key order and tells values apart', () => {
    const a = requestFingerprint({ b: 1, a: { y: [1, 2], x: 'z' } });
    expect(requestFingerprint({ a: { x: 'z', y: [1, 2] }, b: 1 })).toBe(a);
    expect(requestFingerprint({ a: { x: 'z', y: [2, 1] }, b: 1 })).not.toBe(a);
    expect(requestFingerprint({ a: { x: 'z', y: [1, 2] }, b: '1' })).not.toBe(a);
    expect(requestFingerprint({ a: { x: 'z', y: [1, 2] } })).not.toBe(a);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  it('keeps secret header names but not their values: nothing derived from a secret is stored in plain sight', () => {
    const body = (secretHeaders: Record<string, string>) => ({
      target: { url: 'https://example.com/', headers: { 'x-plain': 'v' }, secretHeaders },
      schedule: { type: 'once' },
    });
    const fingerprint = requestFingerprint(body({ authorization: 'Bearer 1234' }));
    expect(requestFingerprint(body({ authorization: 'Bearer 9999' }))).toBe(fingerprint);
    expect(requestFingerprint(body({ 'x-api-key': 'Bearer 1234' }))).not.toBe(fingerprint);
    expect(requestFingerprint(body({}))).not.toBe(fingerprint);
    // Plain headers still count, value and all.
    const plain = { ...body({ authorization: 'Bearer 1234' }) };
    plain.target = { ...plain.target, headers: { 'x-plain': 'w' } };
    expect(requestFingerprint(plain)).not.toBe(fingerprint);
  });
});
