/**
 * POST /v1/jobs with an `Idempotency-Key`, against the local runtime: a client whose create
 * timed out retries with the same key and gets the same job, whose target is called once; the
 * same key with another body is refused (422); a key bound by a request that died before writing
 * its job makes the retry create that job; racing requests with one key make one job; keys are
 * per tenant and live 24 h. Without the header nothing changes.
 */
import type { DynamoDBDocument } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantKeys } from '#adapters/dynamodb/tenant-keys';
import { requestFingerprint } from '#core/use-cases/create-job-once';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { type HttpTarget, startHttpTarget } from '../support/http-target.ts';
import { localDocuments } from '../support/local-documents.ts';
import { type Answer, type Api, apiAs } from './support/tenant-api.ts';

let chronos: LocalChronos;
let target: HttpTarget;
let api: Api;
let documents: DynamoDBDocument;

beforeAll(async () => {
  target = await startHttpTarget();
  chronos = await startLocalChronos({ port: 0, scannerIntervalMs: 0, scanHorizonSeconds: 10, log: () => undefined });
  api = apiAs(chronos.apiUrl, chronos.token);
  documents = localDocuments(chronos.endpoints.dynamodb);
}, 60_000);
afterAll(async () => {
  await chronos?.stop();
  await target?.close();
});

let counter = 0;
/** A unique name and path per test: listings filtered by name count that test's jobs only. */
const unique = (label: string) => `${label}-${Date.now()}-${++counter}`;

/** A one-time job due in `inMs`, named `name`, calling /<name>. */
const onceJob = (name: string, inMs: number) => ({
  name,
  target: { url: target.url(`/${name}`) },
  schedule: { type: 'once', at: new Date(Date.now() + inMs).toISOString() },
});
/** An hourly job named `name`: nothing is called during the test. */
const hourlyJob = (name: string, everySeconds = 3600) => ({
  name,
  target: { url: target.url(`/${name}`) },
  schedule: { type: 'interval', everySeconds, startAt: new Date(Date.now() + 3_600_000).toISOString() },
});

const createWithKey = (body: unknown, key: string, as: Api = api) =>
  as('POST', '/v1/jobs', body, { 'idempotency-key': key });

async function jobsNamed(name: string, as: Api = api): Promise<string[]> {
  const answer = await as('GET', `/v1/jobs?name=${encodeURIComponent(name)}&limit=100`);
  expect(answer.status).toBe(200);
  return (answer.body.items as Array<{ jobId: string }>).map((job) => job.jobId);
}

function expectCreated(answer: Answer, replayed: boolean) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  expect(answer.headers.get('location')).toBe(`/v1/jobs/${answer.body.jobId}`);
  expect(answer.headers.get('idempotent-replayed')).toBe(replayed ? 'true' : null);
}

/** Plants a binding as the tenants table holds it: a request that bound `key` and died. */
async function plantBinding(tenantId: string, key: string, binding: { jobId: string; body: unknown }, purgeAt: number) {
  await documents.put({
    TableName: chronos.tables.tenants,
    Item: {
      ...tenantKeys.createKey(tenantId, key),
      jobId: binding.jobId,
      fingerprint: requestFingerprint(binding.body),
      purgeAt,
    },
  });
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('POST /v1/jobs with an Idempotency-Key', () => {
  it('answers a retry with the job the first request created (Idempotent-Replayed), and calls the target once', async () => {
    const name = unique('retried');
    const body = onceJob(name, 1_500);
    const key = unique('key');
    const first = await createWithKey(body, key);
    expectCreated(first, false);
    // The same body, its keys in another order: the same request.
    const { schedule, target: jobTarget, name: jobName } = body;
    const retry = await createWithKey({ schedule, target: jobTarget, name: jobName }, key);
    expectCreated(retry, true);
    expect(retry.body.jobId).toBe(first.body.jobId);
    expect(await jobsNamed(name)).toEqual([first.body.jobId]);

    await target.waitForCalls(`/${name}`, 1, 10_000);
    // A second job would be due at the same instant: give it time to call, then count.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(target.callsTo(`/${name}`)).toHaveLength(1);
    const replayedLater = await createWithKey(body, key);
    expectCreated(replayedLater, true);
    expect(replayedLater.body.status).toBe('COMPLETED');
  }, 30_000);

  it('refuses the same key with another body (422 naming Idempotency-Key) and creates nothing', async () => {
    const name = unique('reused');
    const key = unique('key');
    const first = await createWithKey(hourlyJob(name), key);
    expectCreated(first, false);
    const other = await createWithKey(hourlyJob(name, 7200), key);
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(other.body.error.details.map((d: { field: string }) => d.field)).toEqual(['Idempotency-Key']);
    expect(await jobsNamed(name)).toEqual([first.body.jobId]);
  });

  it('creates the job under the bound id when the request that bound the key died before writing it', async () => {
    const name = unique('orphan');
    const key = unique('key');
    const body = hourlyJob(name);
    const boundId = ulid();
    await plantBinding(chronos.tenantId, key, { jobId: boundId, body }, nowSeconds() + 3600);

    const retry = await createWithKey(body, key);
    expectCreated(retry, false);
    expect(retry.body.jobId).toBe(boundId);
    expect(await jobsNamed(name)).toEqual([boundId]);
    const again = await createWithKey(body, key);
    expectCreated(again, true);
    expect(again.body.jobId).toBe(boundId);
  });

  it('makes exactly one job of concurrent creates with the same key, and both answers name it', async () => {
    const name = unique('racing');
    const key = unique('key');
    const body = onceJob(name, 1_500);
    const answers = await Promise.all(Array.from({ length: 4 }, () => createWithKey(body, key)));
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const ids = new Set(answers.map((answer) => answer.body.jobId));
    expect(ids.size).toBe(1);
    expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(await jobsNamed(name)).toEqual([...ids]);

    await target.waitForCalls(`/${name}`, 1, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(target.callsTo(`/${name}`)).toHaveLength(1);
  }, 30_000);

  it('makes one job of racing retries of a key whose job is absent: the job puts that lose answer the winner', async () => {
    const name = unique('racing-orphan');
    const key = unique('key');
    const body = hourlyJob(name);
    const boundId = ulid();
    await plantBinding(chronos.tenantId, key, { jobId: boundId, body }, nowSeconds() + 3600);
    // Every retry finds the binding and no job, so each goes on to put the job under the bound id.
    const answers = await Promise.all(Array.from({ length: 4 }, () => createWithKey(body, key)));
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(answers.map((answer) => answer.body.jobId)).toEqual(Array(4).fill(boundId));
    expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(await jobsNamed(name)).toEqual([boundId]);
  });

  it('takes a key of 128 visible ASCII characters and refuses 129 (400 naming Idempotency-Key)', async () => {
    const name = unique('long-key');
    const longest = await createWithKey(hourlyJob(name), 'k'.repeat(128));
    expectCreated(longest, false);
    const tooLong = await createWithKey(hourlyJob(name), 'k'.repeat(129));
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.details.map((d: { field: string }) => d.field)).toEqual(['Idempotency-Key']);
    expect(await jobsNamed(name)).toEqual([longest.body.jobId]);
  });

  it('keeps keys per tenant: another tenant using the same key gets its own job', async () => {
    const name = unique('shared-key');
    const key = unique('key');
    const other = await chronos.tenants.create(unique('other-tenant'));
    const apiOther = apiAs(chronos.apiUrl, other.token.token);
    const body = hourlyJob(name);
    const mine = await createWithKey(body, key);
    const theirs = await createWithKey(body, key, apiOther);
    expectCreated(mine, false);
    expectCreated(theirs, false);
    expect(theirs.body.jobId).not.toBe(mine.body.jobId);
    // Each tenant's retry finds its own job.
    const myRetry = await createWithKey(body, key);
    const theirRetry = await createWithKey(body, key, apiOther);
    expectCreated(myRetry, true);
    expectCreated(theirRetry, true);
    expect(myRetry.body.jobId).toBe(mine.body.jobId);
    expect(theirRetry.body.jobId).toBe(theirs.body.jobId);
    expect(await jobsNamed(name)).toEqual([mine.body.jobId]);
    expect(await jobsNamed(name, apiOther)).toEqual([theirs.body.jobId]);
  });

  it('treats an expired binding as absent (TTL deletes late): the key makes a new job', async () => {
    const name = unique('expired');
    const key = unique('key');
    const body = hourlyJob(name);
    const first = await createWithKey(body, key);
    expectCreated(first, false);
    await plantBinding(chronos.tenantId, key, { jobId: first.body.jobId, body }, nowSeconds() - 1);

    const after = await createWithKey(body, key);
    expectCreated(after, false);
    expect(after.body.jobId).not.toBe(first.body.jobId);
    // The key is bound afresh, to the new job.
    const retry = await createWithKey(body, key);
    expectCreated(retry, true);
    expect(retry.body.jobId).toBe(after.body.jobId);
    expect((await jobsNamed(name)).sort()).toEqual([first.body.jobId, after.body.jobId].sort());
  });

  it('changes nothing without the header: the same body twice is two jobs', async () => {
    const name = unique('no-key');
    const first = await api('POST', '/v1/jobs', hourlyJob(name));
    const second = await api('POST', '/v1/jobs', hourlyJob(name));
    expectCreated(first, false);
    expectCreated(second, false);
    expect(second.body.jobId).not.toBe(first.body.jobId);
    expect(await jobsNamed(name)).toHaveLength(2);
  });
});
