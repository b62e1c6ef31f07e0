/**
 * The ETag a client edits with stands for the job's definition, end to end: the scanner advancing
 * a job that fires every second does not change it (so an edit form opened seconds ago still
 * saves), another client's PATCH, a pause, a resume and a cancel do. PATCHes racing the scanner
 * are never lost, and the job then fires on the schedule the last one set. The deterministic race
 * (a write lost to an advance, decided again) is in test/unit/core/use-cases/definition-version.test.ts.
 */
import type { DynamoDBDocument } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { eventually, type HttpTarget, type RecordedCall, startHttpTarget } from '../support/http-target.ts';
import { localDocuments } from '../support/local-documents.ts';
import { type Api, apiAs } from './support/tenant-api.ts';

let chronos: LocalChronos;
let target: HttpTarget;
let documents: DynamoDBDocument;
let api: Api;

beforeAll(async () => {
  target = await startHttpTarget();
  chronos = await startLocalChronos({
    port: 0,
    // Frequent passes over a short horizon: a job firing every second is advanced every pass.
    scannerIntervalMs: 250,
    scanHorizonSeconds: 2,
    dueShardCount: 2,
    log: () => undefined,
  });
  documents = localDocuments(chronos.endpoints.dynamodb);
  api = apiAs(chronos.apiUrl, chronos.token);
});
afterAll(async () => {
  documents?.destroy();
  await chronos?.stop();
  await target?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const iso = (ms: number) => new Date(ms).toISOString();
/** The occurrence a call was for, from its Idempotency-Key `<jobId>:<scheduledFor>`. */
const scheduledFor = (call: RecordedCall) => Number(String(call.headers['idempotency-key']).split(':')[1]);

async function everySecond(path: string): Promise<string> {
  const created = await api('POST', '/v1/jobs', {
    target: { url: target.url(path) },
    schedule: { type: 'interval', everySeconds: 1 },
  });
  expect(created.status).toBe(201);
  return created.body.jobId;
}

/** The job item as stored: `version` is the internal write counter the API never shows. */
async function stored(jobId: string): Promise<Record<string, unknown>> {
  const { Item } = await documents.get({
    TableName: chronos.tables.jobs,
    Key: { tenantId: chronos.tenantId, jobId },
    ConsistentRead: true,
  });
  return Item ?? {};
}
const storedVersion = async (jobId: string) => (await stored(jobId)).version as number;

describe('the ETag of a job firing every second', () => {
  it('still matches 3 s (several scanner advances) after it was read; a tag from before another PATCH gets 409', async () => {
    const jobId = await everySecond('/busy');
    await target.waitForCalls('/busy', 1, 10_000);
    const read = await api('GET', `/v1/jobs/${jobId}`);
    const etag = read.headers.get('etag') as string;
    expect(etag).toBe(`"${read.body.version}"`);
    const advancedFrom = await storedVersion(jobId);

    await sleep(3_500);
    // The scanner did advance it meanwhile (the write that used to change the tag)...
    expect(await storedVersion(jobId)).toBeGreaterThanOrEqual(advancedFrom + 2);
    expect(target.callsTo('/busy').length).toBeGreaterThanOrEqual(3);
    // ...and the tag is the same.
    expect((await api('GET', `/v1/jobs/${jobId}`)).headers.get('etag')).toBe(etag);

    const mine = await api('PATCH', `/v1/jobs/${jobId}`, { name: 'edited late' }, { 'if-match': etag });
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ name: 'edited late', version: read.body.version + 1 });
    expect(mine.headers.get('etag')).toBe(`"${read.body.version + 1}"`);

    // Another user still holding the tag read before that PATCH: refused, nothing changes.
    const theirs = await api('PATCH', `/v1/jobs/${jobId}`, { name: 'overwritten' }, { 'if-match': etag });
    expect(theirs.status).toBe(409);
    expect(theirs.body.error.code).toBe('CONFLICT');
    const after = await api('GET', `/v1/jobs/${jobId}`);
    expect(after.body).toMatchObject({ name: 'edited late', version: read.body.version + 1 });
    await api('DELETE', `/v1/jobs/${jobId}`);
  }, 30_000);

  it('changes with pause, resume and cancel (each answer carries the new one), and a tag from before them gets 409', async () => {
    const jobId = await everySecond('/lifecycle');
    const tags = [(await api('GET', `/v1/jobs/${jobId}`)).headers.get('etag') as string];
    for (const [method, path] of [
      ['POST', `/v1/jobs/${jobId}/pause`],
      ['POST', `/v1/jobs/${jobId}/resume`],
      ['DELETE', `/v1/jobs/${jobId}`],
    ] as const) {
      const answer = await api(method, path);
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get('etag')).toBe(`"${answer.body.version}"`);
      // What a GET shows afterwards, scanner passes included, is what the action answered.
      expect((await api('GET', `/v1/jobs/${jobId}`)).headers.get('etag')).toBe(answer.headers.get('etag'));
      tags.push(answer.headers.get('etag') as string);
      if (method === 'POST') {
        const stale = await api('PATCH', `/v1/jobs/${jobId}`, { name: 'stale' }, { 'if-match': tags.at(-2) as string });
        expect(stale.status, `PATCH with the tag from before ${path}`).toBe(409);
      }
    }
    const versions = tags.map((tag) => Number(JSON.parse(tag)));
    const first = versions[0] as number;
    expect(versions).toEqual([first, first + 1, first + 2, first + 3]);
  }, 20_000);
});

describe('PATCHes racing the scanner', () => {
  it('are never lost, and the job then fires on the schedule the last one set', async () => {
    const jobId = await everySecond('/raced');
    await target.waitForCalls('/raced', 1, 10_000);
    const path = `/v1/jobs/${jobId}`;
    let version = (await api('GET', path)).body.version as number;
    const internalFrom = await storedVersion(jobId);
    const callsFrom = target.callsTo('/raced').length;

    // Back to back for a few seconds while the scanner advances the job every pass: each from a fresh read.
    for (let i = 0; i < 12; i++) {
      const read = await api('GET', path);
      const patched = await api(
        'PATCH',
        path,
        { name: `edit ${i}`, schedule: { type: 'interval', everySeconds: 1 + (i % 2) } },
        { 'if-match': read.headers.get('etag') as string },
      );
      expect(patched.status, `PATCH ${i}`).toBe(200);
      expect(patched.body).toMatchObject({ name: `edit ${i}`, version: version + 1 });
      version += 1;
      await sleep(200);
    }
    // The job kept firing throughout, and writes other than the PATCHes went in between.
    expect(target.callsTo('/raced').length - callsFrom).toBeGreaterThanOrEqual(3);
    expect(await storedVersion(jobId)).toBeGreaterThan(internalFrom + 12);

    const startAt = Math.ceil(Date.now() / 1_000) * 1_000 + 3_000;
    const last = await api(
      'PATCH',
      path,
      { name: 'final', schedule: { type: 'interval', everySeconds: 3, startAt: iso(startAt) } },
      { 'if-match': `"${version}"` },
    );
    expect(last.status).toBe(200);
    expect(last.body.nextFireAt).toBe(iso(startAt));

    // Advanced past two slots of the new schedule, always on it.
    const onSchedule = (at: number) => at >= startAt && (at - startAt) % 3_000 === 0;
    const moved = await eventually(
      () => api('GET', path),
      (read) => Date.parse(read.body.nextFireAt) > startAt + 3_000,
      15_000,
    );
    expect(onSchedule(Date.parse(moved.body.nextFireAt))).toBe(true);
    expect(moved.body).toMatchObject({ name: 'final', version: version + 1 });
    expect(moved.body.schedule).toMatchObject({ type: 'interval', everySeconds: 3, startAt: iso(startAt) });
    await eventually(
      async () =>
        target
          .callsTo('/raced')
          .map(scheduledFor)
          .filter((at) => at >= startAt),
      (calls) => calls.length >= 2,
      15_000,
    );
    const late = target
      .callsTo('/raced')
      .map(scheduledFor)
      // The old schedule's runs end before startAt - 1 s (the last scan before the PATCH saw 2 s ahead).
      .filter((at) => at > startAt - 1_000);
    for (const at of late) expect(onSchedule(at), iso(at)).toBe(true);
    await api('DELETE', path);
  }, 60_000);
});

describe('a job stored before definition versions', () => {
  it('shows the version it had, keeps it while the scanner advances it, and takes it as If-Match', async () => {
    const jobId = await everySecond('/legacy');
    // As old data left it: an internal version only.
    await documents.update({
      TableName: chronos.tables.jobs,
      Key: { tenantId: chronos.tenantId, jobId },
      UpdateExpression: 'SET #version = :old REMOVE #definition',
      ExpressionAttributeNames: { '#version': 'version', '#definition': 'definitionVersion' },
      ExpressionAttributeValues: { ':old': 40 },
    });
    const read = await api('GET', `/v1/jobs/${jobId}`);
    expect(read.body.version).toBe(40);
    expect(read.headers.get('etag')).toBe('"40"');

    await eventually(
      () => storedVersion(jobId),
      (version) => version >= 42,
      10_000,
    );
    expect(await stored(jobId)).toMatchObject({ definitionVersion: 40 });
    expect((await api('GET', `/v1/jobs/${jobId}`)).headers.get('etag')).toBe('"40"');

    const patched = await api('PATCH', `/v1/jobs/${jobId}`, { name: 'migrated' }, { 'if-match': '"40"' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'migrated', version: 41 });
    await api('DELETE', `/v1/jobs/${jobId}`);
  }, 20_000);
});
