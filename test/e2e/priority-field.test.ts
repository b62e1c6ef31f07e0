/**
 * The `priority` field over HTTP (issue #22): a job, a PATCH and a workflow's tasks take it, every
 * answer shows it (`normal` when none was given), runs show the lane they were made in, and a
 * value that is no lane is a 400 naming `priority` that writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { eventually, type HttpTarget, startHttpTarget } from '../support/http-target.ts';
import { type Api, apiAs } from './support/tenant-api.ts';

let chronos: LocalChronos;
let target: HttpTarget;
let api: Api;

beforeAll(async () => {
  target = await startHttpTarget(() => ({ status: 200 }));
  chronos = await startLocalChronos({
    port: 0,
    scannerIntervalMs: 1_000,
    scanHorizonSeconds: 10,
    log: () => undefined,
  });
  api = apiAs(chronos.apiUrl, chronos.token);
}, 60_000);
afterAll(async () => {
  await chronos?.stop();
  await target?.close();
});

/** The job's runs once `count` of them ended. */
async function endedRuns(jobId: string, count: number) {
  const answer = await eventually(
    () => api('GET', `/v1/jobs/${jobId}/runs`),
    (got) => got.body.items?.filter((run: { status: string }) => run.status === 'SUCCEEDED').length >= count,
    20_000,
  );
  return answer.body.items as Array<{ status: string; priority: string; scheduledFor: string }>;
}

describe('the priority field', () => {
  it('is shown on every job and run, normal by default', async () => {
    const created = await api('POST', '/v1/jobs', {
      target: { url: target.url('/plain') },
      schedule: { type: 'once' },
    });
    expect(created.status).toBe(201);
    expect(created.body.priority).toBe('normal');
    expect((await api('GET', `/v1/jobs/${created.body.jobId}`)).body.priority).toBe('normal');
    expect((await endedRuns(created.body.jobId, 1))[0]?.priority).toBe('normal');
  });

  it('takes a PATCH for the runs made after it: the run already made keeps its lane', async () => {
    const startAt = new Date(Math.ceil(Date.now() / 1000) * 1000 + 2_000).toISOString();
    const created = await api('POST', '/v1/jobs', {
      target: { url: target.url('/patched') },
      schedule: { type: 'interval', everySeconds: 15, startAt },
      priority: 'low',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.priority).toBe('low');

    const patched = await api(
      'PATCH',
      `/v1/jobs/${created.body.jobId}`,
      { priority: 'high' },
      {
        'if-match': String(created.body.version),
      },
    );
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.priority).toBe('high');
    expect((await api('GET', `/v1/jobs/${created.body.jobId}`)).body.priority).toBe('high');

    // The first occurrence was made at creation (in the horizon), the second after the PATCH.
    const runs = await endedRuns(created.body.jobId, 2);
    const byTime = [...runs].sort((a, b) => a.scheduledFor.localeCompare(b.scheduledFor));
    expect(byTime.slice(0, 2).map((run) => run.priority)).toEqual(['low', 'high']);
    await api('DELETE', `/v1/jobs/${created.body.jobId}`);
  }, 40_000);

  it('refuses anything but a lane with a 400 naming priority, and writes nothing', async () => {
    const before = (await api('GET', '/v1/jobs')).body.items.length;
    for (const priority of ['urgent', 'HIGH', 1, null]) {
      const answer = await api('POST', '/v1/jobs', {
        target: { url: target.url('/refused') },
        schedule: { type: 'once' },
        priority,
      });
      expect(answer.status).toBe(400);
      expect(answer.body.error.details).toContainEqual({
        field: 'priority',
        reason: 'must be one of high, normal, low',
      });
    }
    expect((await api('GET', '/v1/jobs')).body.items.length).toBe(before);
  });

  it("runs each workflow task in its own lane and shows it on the workflow's tasks and their runs", async () => {
    const created = await api('POST', '/v1/workflows', {
      tasks: [
        { key: 'urgent', target: { url: target.url('/wf/urgent') }, priority: 'high' },
        { key: 'bulk', target: { url: target.url('/wf/bulk') }, priority: 'low', dependsOn: ['urgent'] },
        { key: 'plain', target: { url: target.url('/wf/plain') }, dependsOn: ['urgent'] },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.tasks.map((task: { priority: string }) => task.priority)).toEqual(['high', 'low', 'normal']);

    const triggered = await api('POST', `/v1/workflows/${created.body.workflowId}/trigger`);
    expect(triggered.status).toBe(202);
    const run = await eventually(
      () => api('GET', `/v1/workflow-runs/${triggered.body.workflowRunId}`),
      (got) => got.status === 200 && got.body.status === 'SUCCEEDED',
      30_000,
    );
    const lanes: Record<string, string> = {};
    for (const task of run.body.tasks as Array<{ key: string; runId: string }>) {
      lanes[task.key] = (await api('GET', `/v1/runs/${task.runId}`)).body.priority;
    }
    expect(lanes).toEqual({ urgent: 'high', bulk: 'low', plain: 'normal' });
  }, 40_000);
});
