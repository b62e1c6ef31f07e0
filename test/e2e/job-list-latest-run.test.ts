/**
 * GET /v1/jobs shows each job's latest run, as GET /v1/jobs/{id} does (a jobs table shows the last
 * run's status and time without a call per row), through the local runtime and its IAM: the
 * listing's function reads the runs table only as its route grants.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { eventually, type HttpTarget, startHttpTarget } from '../support/http-target.ts';
import { type Api, apiAs } from './support/tenant-api.ts';

let chronos: LocalChronos;
let target: HttpTarget;
let api: Api;

beforeAll(async () => {
  target = await startHttpTarget((path) => ({ status: path.startsWith('/fail') ? 500 : 200 }));
  chronos = await startLocalChronos({ port: 0, log: () => undefined });
  api = apiAs(chronos.apiUrl, chronos.token);
}, 60_000);
afterAll(async () => {
  await chronos?.stop();
  await target?.close();
});

async function create(body: Record<string, unknown>): Promise<string> {
  const created = await api('POST', '/v1/jobs', { retry: { maxAttempts: 1 }, ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.jobId;
}

describe('the jobs listing', () => {
  it("shows each job's latest run as the job itself does, and none for a job that has not run", async () => {
    const ok = await create({ target: { url: target.url('/ok') }, schedule: { type: 'once' } });
    const failed = await create({ target: { url: target.url('/fail') }, schedule: { type: 'once' } });
    const later = await create({
      target: { url: target.url('/later') },
      schedule: { type: 'interval', everySeconds: 3600, startAt: new Date(Date.now() + 3_600_000).toISOString() },
    });
    await eventually(
      async () => Promise.all([ok, failed].map(async (id) => (await api('GET', `/v1/jobs/${id}`)).body.status)),
      (statuses) => statuses.every((s) => s === 'COMPLETED' || s === 'FAILED'),
      30_000,
    );

    const listed = await api('GET', '/v1/jobs');

    expect(listed.status).toBe(200);
    const byId = new Map(listed.body.items.map((job: { jobId: string }) => [job.jobId, job]));
    for (const id of [ok, failed, later]) {
      const single = (await api('GET', `/v1/jobs/${id}`)).body;
      expect((byId.get(id) as { latestRun: unknown }).latestRun, id).toEqual(single.latestRun);
    }
    expect((byId.get(ok) as { latestRun: unknown }).latestRun).toMatchObject({
      status: 'SUCCEEDED',
      httpStatus: 200,
      completedAt: expect.any(String),
    });
    expect((byId.get(failed) as { latestRun: unknown }).latestRun).toMatchObject({ status: 'FAILED', httpStatus: 500 });
    expect((byId.get(later) as { latestRun: unknown }).latestRun).toBeNull();
  });
});
