/**
 * The two request headers a client sends for safe retries, at their edges: `If-Match` on PATCH in
 * each form the API documents (`3`, `"3"`, `W/"3"`) and in the forms it does not take (`*`, a bare
 * `W/`, lower-case `w/`, a list), and the 128/129-character boundary of a trigger's
 * `Idempotency-Key`. Never a 5xx; a refused request changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { type HttpTarget, startHttpTarget } from '../support/http-target.ts';
import { type Answer, type Api, apiAs } from './support/tenant-api.ts';

let chronos: LocalChronos;
let target: HttpTarget;
let api: Api;

beforeAll(async () => {
  target = await startHttpTarget();
  chronos = await startLocalChronos({ port: 0, scannerIntervalMs: 0, scanHorizonSeconds: 10, log: () => undefined });
  api = apiAs(chronos.apiUrl, chronos.token);
});
afterAll(async () => {
  await chronos?.stop();
  await target?.close();
});

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

async function hourlyJob(path: string): Promise<{ jobId: string; version: number }> {
  const created = await api('POST', '/v1/jobs', {
    target: { url: target.url(path) },
    schedule: { type: 'interval', everySeconds: 3600, startAt: inAnHour() },
  });
  expect(created.status).toBe(201);
  return { jobId: created.body.jobId, version: created.body.version };
}

function expectHeaderRefused(answer: Answer, header: string) {
  expect(answer.status).toBe(400);
  expect(answer.body.error.details.map((d: { field: string }) => d.field)).toEqual([header]);
}

describe('If-Match on PATCH', () => {
  it('takes the job version bare, quoted and weak, and answers 409 for another version in each form', async () => {
    const { jobId, version } = await hourlyJob('/if-match');
    let current = version;
    for (const form of [(v: number) => `${v}`, (v: number) => `"${v}"`, (v: number) => `W/"${v}"`]) {
      const stale = await api('PATCH', `/v1/jobs/${jobId}`, { name: 'stale' }, { 'if-match': form(current - 1) });
      expect(stale.status, form(current - 1)).toBe(409);
      expect(stale.body.error.code).toBe('CONFLICT');

      const fresh = await api(
        'PATCH',
        `/v1/jobs/${jobId}`,
        { name: `named ${form(current)}` },
        { 'if-match': form(current) },
      );
      expect(fresh.status, form(current)).toBe(200);
      expect(fresh.body.version).toBe(current + 1);
      expect(fresh.headers.get('etag')).toBe(`"${current + 1}"`);
      current += 1;
    }
    const job = await api('GET', `/v1/jobs/${jobId}`);
    expect(job.body).toMatchObject({ name: `named W/"${current - 1}"`, version: current });
  });

  it('answers 400 naming If-Match for a wildcard, an empty or malformed tag, and 428 without one; nothing changes', async () => {
    const { jobId, version } = await hourlyJob('/if-match-odd');
    for (const value of [
      '*',
      'W/',
      `w/"${version}"`,
      `W/ "${version}"`,
      `"${version}`,
      `"${version}", "${version}"`,
      `'${version}'`,
    ]) {
      expectHeaderRefused(
        await api('PATCH', `/v1/jobs/${jobId}`, { name: 'renamed' }, { 'if-match': value }),
        'If-Match',
      );
    }
    const missing = await api('PATCH', `/v1/jobs/${jobId}`, { name: 'renamed' });
    expect(missing.status).toBe(428);
    expect(missing.body.error.details).toEqual([{ field: 'If-Match', reason: 'is required' }]);

    const job = await api('GET', `/v1/jobs/${jobId}`);
    expect(job.body.version).toBe(version);
    expect(job.body.name).not.toBe('renamed');
  });
});

describe('Idempotency-Key on trigger', () => {
  it('takes a 128-character key (and replays its run), and answers 400 naming the header for 129', async () => {
    const { jobId } = await hourlyJob('/keyed');
    const key128 = 'k'.repeat(127) + '~';
    expect(key128).toHaveLength(128);

    const first = await api('POST', `/v1/jobs/${jobId}/trigger`, undefined, { 'idempotency-key': key128 });
    const again = await api('POST', `/v1/jobs/${jobId}/trigger`, undefined, { 'idempotency-key': key128 });
    const tooLong = await api('POST', `/v1/jobs/${jobId}/trigger`, undefined, { 'idempotency-key': `${key128}k` });

    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.runId).toBe(first.body.runId);
    expectHeaderRefused(tooLong, 'Idempotency-Key');

    await target.waitForCalls('/keyed', 1, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 500)); // room for a second call that must not come
    expect(target.callsTo('/keyed')).toHaveLength(1);
    const runs = await api('GET', `/v1/jobs/${jobId}/runs`);
    expect(runs.body.items.map((run: { runId: string }) => run.runId)).toEqual([first.body.runId]);
  });
});
