/**
 * Flow control per key, rate (issue #22): 100 runs of one key due at the same second with
 * `ratePerSecond: 10` are called over at least 9.5 s, never more than 10 in any second; another
 * key of the same tenant, due at the same second, is not slowed by it; each waiting run costs one
 * delayed message (counted at the SQS client), shows `waitedMs`, and `GET /v1/flow-control/{key}`
 * shows the key's limits and its waiting runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { type ProcessTarget, startProcessTarget } from '../support/process-target.ts';
import { countDispatchSends, type DispatchSends } from './support/dispatch-sends.ts';
import { type Api, apiAs } from './support/tenant-api.ts';

const RUNS = 100;
const RATE = 10;
const OTHER_RUNS = 8;

let chronos: LocalChronos;
let target: ProcessTarget;
let sends: DispatchSends;
let api: Api;

beforeAll(async () => {
  sends = countDispatchSends();
  target = await startProcessTarget();
  chronos = await startLocalChronos({ port: 0, scannerIntervalMs: 1_000, log: () => undefined });
  const tenant = await chronos.tenants.create('flow-rate', { maxConcurrentRuns: 1_000 });
  api = apiAs(chronos.apiUrl, tenant.token.token);
}, 60_000);
afterAll(async () => {
  sends?.stop();
  await chronos?.stop();
  await target?.close();
});

async function createJobs(count: number, path: string, flowControl: unknown, at: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, count - i) }, () =>
        api('POST', '/v1/jobs', { target: { url: target.url(path) }, schedule: { type: 'once', at }, flowControl }),
      ),
    );
    for (const answer of batch) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      ids.push(answer.body.jobId);
    }
  }
  return ids;
}

/** The most calls whose arrival falls in any window [t, t + 1 s). */
function busiestSecond(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while ((sorted[end] as number) - (sorted[start] as number) >= 1000) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

describe('flow control: rate per key', () => {
  it('spreads 100 runs due at the same second over ≥ 9.5 s at ≤ 10 a second, without slowing another key', async () => {
    // Far enough ahead that 108 creates finish before it on a loaded machine.
    const dueAt = Math.ceil((Date.now() + 20_000) / 1000) * 1000;
    const at = new Date(dueAt).toISOString();
    const slow = await createJobs(RUNS, '/slow', { key: 'partner-api', ratePerSecond: RATE }, at);
    const other = await createJobs(OTHER_RUNS, '/other', { key: 'other-api', ratePerSecond: 1000 }, at);
    expect(dueAt).toBeGreaterThan(Date.now()); // all made before they were due

    // While the key is busy, it shows its limit and the runs waiting for it: read until 20 calls
    // are in (how many runs have reached the key by then depends on how busy the host is).
    const busy: Array<{ status: number; body: Record<string, unknown> }> = [];
    while ((await target.callsTo('/slow')).length < 20 && Date.now() < dueAt + 30_000) {
      busy.push(await api('GET', '/v1/flow-control/partner-api'));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const seen = busy.filter((answer) => answer.status === 200).map((answer) => answer.body);
    for (const body of seen) {
      expect(body).toMatchObject({ key: 'partner-api', ratePerSecond: RATE, inFlight: 0 });
      expect(body.parallelism).toBeUndefined();
      expect(body.waiting as number).toBeLessThanOrEqual(RUNS);
    }
    expect(Math.max(...seen.map((body) => body.waiting as number))).toBeGreaterThanOrEqual(50);

    const calls = await target.waitForCalls('/slow', RUNS, 40_000);
    if (process.env.FLOW_DEBUG) {
      await new Promise((r) => setTimeout(r, 3000));
      const all = await Promise.all(
        slow.map(async (jobId) => (await api('GET', `/v1/jobs/${jobId}/runs`)).body.items[0]),
      );
      const rows = all
        .map((r) => [
          Date.parse(r.startedAt) - dueAt,
          r.waitedMs,
          Date.parse(r.claimedAt) - dueAt,
          sends.of(r.runId),
          r.status,
        ])
        .sort((a, b) => (a[0] as number) - (b[0] as number));
      console.log(rows.map((r) => r.join(' ')).join('\n'));
    }
    const times = calls.map((call) => call.at);
    const spread = Math.max(...times) - Math.min(...times);
    expect(spread).toBeGreaterThanOrEqual(9_500);
    const arrivals = [...times].sort((a, b) => a - b).map((t) => t - dueAt);
    expect(busiestSecond(times), `arrivals after the due second (ms): ${arrivals.join(' ')}`).toBeLessThanOrEqual(RATE);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(dueAt); // never early

    // The other key's runs all started within a second or so of their due time, during the spread.
    const others = (await target.callsTo('/other')).map((call) => call.at);
    expect(others).toHaveLength(OTHER_RUNS);
    expect(Math.max(...others) - dueAt).toBeLessThan(2_000);

    // Every run ran once; the waiting ones show waitedMs, and cost one delayed message each.
    const runs = await Promise.all(
      slow.map(async (jobId) => {
        let items: Array<Record<string, unknown>> = [];
        for (let i = 0; i < 50 && items[0]?.status !== 'SUCCEEDED'; i++) {
          items = (await api('GET', `/v1/jobs/${jobId}/runs`)).body.items;
          if (items[0]?.status !== 'SUCCEEDED') await new Promise((r) => setTimeout(r, 200));
        }
        return items;
      }),
    );
    expect(runs.every((items) => items.length === 1 && items[0]?.status === 'SUCCEEDED')).toBe(true);
    const waited = runs.map((items) => items[0] as { runId: string; waitedMs?: number; flowControl?: unknown });
    const waiting = waited.filter((run) => (run.waitedMs ?? 0) > 0);
    expect(waiting.length).toBeGreaterThanOrEqual(RUNS - 2 * RATE);
    expect(Math.max(...waiting.map((run) => run.waitedMs as number))).toBeGreaterThanOrEqual(8_500);
    expect(Math.max(...waiting.map((run) => run.waitedMs as number))).toBeLessThan(15_000);
    expect(waited[0]?.flowControl).toEqual({ key: 'partner-api', ratePerSecond: RATE });
    // One delayed message per waiting run; a run held up past its instant (a loaded host) takes a new one.
    const extraSends = waiting.map((run) => sends.of(run.runId) - 1).sort((a, b) => a - b);
    const perWaitingRun = extraSends.reduce((sum, n) => sum + n, 0) / waiting.length;
    console.log(`rate: ${waiting.length} waiting runs, ${perWaitingRun.toFixed(2)} extra SQS messages per waiting run`);
    expect(extraSends[Math.floor(extraSends.length / 2)]).toBe(1);
    // Never a polling loop: one a second over a wait of up to 10 s would be about 5 per run.
    expect(perWaitingRun).toBeLessThanOrEqual(2.5);

    const idle = await api('GET', '/v1/flow-control/partner-api');
    expect(idle.body).toMatchObject({ inFlight: 0, waiting: 0 });
    expect((await api('GET', '/v1/flow-control/never-named')).status).toBe(404);
    expect(other).toHaveLength(OTHER_RUNS);
  }, 120_000);

  it("takes a key's limits from the latest job write naming it, and PATCH null removes a job's key", async () => {
    const far = new Date(Date.now() + 3_600_000).toISOString();
    const created = await api('POST', '/v1/jobs', {
      target: { url: target.url('/later') },
      schedule: { type: 'once', at: far },
      flowControl: { key: 'tuned', ratePerSecond: 5 },
    });
    expect(created.status).toBe(201);
    expect(created.body.flowControl).toEqual({ key: 'tuned', ratePerSecond: 5 });
    expect((await api('GET', '/v1/flow-control/tuned')).body).toMatchObject({ ratePerSecond: 5, inFlight: 0 });

    const jobId = created.body.jobId;
    const etag = (await api('GET', `/v1/jobs/${jobId}`)).headers.get('etag') ?? '';
    const tuned = await api(
      'PATCH',
      `/v1/jobs/${jobId}`,
      { flowControl: { key: 'tuned', parallelism: 3 } },
      { 'if-match': etag },
    );
    expect(tuned.status).toBe(200);
    expect(tuned.body.flowControl).toEqual({ key: 'tuned', parallelism: 3 });
    const key = (await api('GET', '/v1/flow-control/tuned')).body;
    expect(key).toMatchObject({ key: 'tuned', parallelism: 3 });
    expect(key.ratePerSecond).toBeUndefined();

    const removed = await api(
      'PATCH',
      `/v1/jobs/${jobId}`,
      { flowControl: null },
      { 'if-match': tuned.headers.get('etag') ?? '' },
    );
    expect(removed.status).toBe(200);
    expect(removed.body.flowControl).toBeNull();
    expect((await api('GET', `/v1/jobs/${jobId}`)).body.flowControl).toBeNull();
    // A workflow task names a key as a job does; its create writes the key's limits too.
    const workflow = await api('POST', '/v1/workflows', {
      tasks: [{ key: 'only', target: { url: target.url('/task') }, flowControl: { key: 'wf key', parallelism: 2 } }],
    });
    expect(workflow.status).toBe(201);
    expect(workflow.body.tasks[0].flowControl).toEqual({ key: 'wf key', parallelism: 2 });
    expect((await api('GET', `/v1/flow-control/${encodeURIComponent('wf key')}`)).body).toMatchObject({
      key: 'wf key',
      parallelism: 2,
    });
    // A key in the path is URL-encoded; one that no job named is not found.
    expect((await api('GET', `/v1/flow-control/${encodeURIComponent('a key/with slash')}`)).status).toBe(404);
  });
});
