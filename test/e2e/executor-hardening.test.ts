/**
 * The executor under awkward timing and failing dependencies, end to end on the local runtime:
 *  - `overlap: "forbid"` holds against every run in flight, not only the previous occurrence;
 *  - an error before the call (a throttled job read, the signing keys) brings the message back
 *    within seconds, though the queue's visibility timeout is half an hour, as deployed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { eventually } from '../support/http-target.ts';

const SLOW_CALL_MS = 5_000;
let chronos: LocalChronos;
let target: Server;
let targetBase: string;
/** Calls in flight at the target right now, the most ever seen, and every call by path. */
const inFlight = { now: 0, max: 0 };
const arrivals: Array<{ path: string; at: number }> = [];

beforeAll(async () => {
  target = createServer((req, res) => {
    const path = req.url ?? '/';
    arrivals.push({ path, at: Date.now() });
    if (!path.startsWith('/slow')) {
      res.end('ok');
      return;
    }
    inFlight.now++;
    inFlight.max = Math.max(inFlight.max, inFlight.now);
    setTimeout(() => {
      inFlight.now--;
      res.end('done');
    }, SLOW_CALL_MS).unref();
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetBase = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  chronos = await startLocalChronos({
    port: 0,
    scannerIntervalMs: 1_000,
    scanHorizonSeconds: 3,
    // As deployed: a failed record that waited out the queue's timeout would not come back during the test.
    visibilityTimeoutSeconds: 1_800,
    quotas: { maxConcurrentRuns: 80 },
    log: () => undefined,
  });
}, 60_000);
afterAll(async () => {
  await chronos?.stop();
  target?.closeAllConnections();
  await new Promise<void>((resolve) => (target ? target.close(() => resolve()) : resolve()));
});

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(`${chronos.apiUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${chronos.token}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

type RunView = { runId: string; status: string; errorType: string | null; scheduledFor: string };
const runsOf = async (jobId: string) => (await api('GET', `/v1/jobs/${jobId}/runs?limit=100`)).body.items as RunView[];
const callsTo = (path: string) => arrivals.filter((a) => a.path === path);

describe('overlap: "forbid"', () => {
  it('never has two calls in flight: every occurrence and trigger meanwhile is SKIPPED as overlap', async () => {
    const created = await api('POST', '/v1/jobs', {
      target: { url: `${targetBase}/slow-forbid` },
      schedule: { type: 'interval', everySeconds: 1, startAt: new Date(Date.now() + 1_000).toISOString() },
      overlap: 'forbid',
      timeoutSeconds: 10,
    });
    expect(created.status).toBe(201);
    const jobId = created.body.jobId as string;

    // A call is in flight: a manual trigger now is refused by the same rule.
    await eventually(
      async () => inFlight.now,
      (n) => n === 1,
      10_000,
    );
    const triggered = await api('POST', `/v1/jobs/${jobId}/trigger`);
    expect(triggered.status).toBe(202);
    const triggeredRunId = triggered.body.runId as string;

    // Two slow calls' worth of occurrences, then stop the schedule.
    await new Promise((resolve) => setTimeout(resolve, 2 * SLOW_CALL_MS + 1_500));
    expect((await api('POST', `/v1/jobs/${jobId}/pause`)).status).toBe(200);
    await eventually(
      async () => inFlight.now,
      (n) => n === 0,
      SLOW_CALL_MS + 2_000,
    );
    const runs = await eventually(
      () => runsOf(jobId),
      (items) => items.every((r) => r.status !== 'QUEUED' && r.status !== 'RUNNING'),
      10_000,
    );

    expect(inFlight.max).toBe(1);
    expect(callsTo('/slow-forbid').length).toBeGreaterThanOrEqual(2);
    const skipped = runs.filter((r) => r.status === 'SKIPPED' && r.errorType === 'overlap');
    // About one occurrence a second, one call every five seconds: most occurrences were skipped
    // (fewer when a loaded scanner falls behind and its misfire policy folds missed ones into one).
    expect(skipped.length).toBeGreaterThanOrEqual(3);
    expect(runs.find((r) => r.runId === triggeredRunId)).toMatchObject({ status: 'SKIPPED', errorType: 'overlap' });
    expect(runs.filter((r) => r.status === 'SUCCEEDED')).toHaveLength(callsTo('/slow-forbid').length);
  }, 60_000);
});

describe('an error before the call', () => {
  /** Makes `method` of a wiring adapter fail once for `jobId`, as a throttled dependency would. */
  async function failOnceFor(jobId: string, pick: 'job read' | 'signing keys') {
    const wiring = await import('#handlers/wiring');
    let failed = false;
    const throttled = () => {
      failed = true;
      throw Object.assign(new Error('Rate of requests exceeds the allowed throughput'), {
        name: 'ProvisionedThroughputExceededException',
        $metadata: {},
      });
    };
    if (pick === 'job read') {
      // The executor's own repository: its job reads are coalesced (coalesced-job-reads.ts).
      const jobs = wiring.executorJobRepository();
      const get = jobs.get.bind(jobs);
      jobs.get = async (tenantId, id) => (id === jobId && !failed ? throttled() : get(tenantId, id));
    } else {
      const keys = wiring.signingKeys();
      const keysFor = keys.keysFor.bind(keys);
      keys.keysFor = async (tenantId) => (!failed ? throttled() : keysFor(tenantId));
    }
    return () => failed;
  }

  it('brings the message back within seconds after a throttled job read, and calls the target once', async () => {
    // Far ahead, so the job exists before its run is sent; the failure is armed in between.
    const at = Date.now() + 4_000;
    const created = await api('POST', '/v1/jobs', {
      target: { url: `${targetBase}/after-failed-read` },
      schedule: { type: 'once', at: new Date(at).toISOString() },
    });
    const jobId = created.body.jobId as string;
    const failed = await failOnceFor(jobId, 'job read');

    const [call] = await eventually(
      async () => callsTo('/after-failed-read'),
      (calls) => calls.length > 0,
      20_000,
    );

    expect(failed()).toBe(true);
    // Due at `at`; the failed delivery came back within a few seconds, not after 30 minutes.
    expect((call?.at ?? 0) - at).toBeLessThan(10_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(callsTo('/after-failed-read')).toHaveLength(1);
  }, 40_000);

  it('gives the claim back when the signing keys fail after it, so the run is called within seconds', async () => {
    const at = Date.now() + 4_000;
    const created = await api('POST', '/v1/jobs', {
      target: { url: `${targetBase}/after-failed-keys` },
      schedule: { type: 'once', at: new Date(at).toISOString() },
      timeoutSeconds: 30,
    });
    const jobId = created.body.jobId as string;
    const failed = await failOnceFor(jobId, 'signing keys');

    const [call] = await eventually(
      async () => callsTo('/after-failed-keys'),
      (calls) => calls.length > 0,
      20_000,
    );

    expect(failed()).toBe(true);
    // Without the claim given back, the retry would find a live lease (timeout + margin: a minute).
    expect((call?.at ?? 0) - at).toBeLessThan(10_000);
    const runs = await eventually(
      () => runsOf(jobId),
      (items) => items[0]?.status === 'SUCCEEDED',
      10_000,
    );
    expect(runs).toHaveLength(1);
    expect(callsTo('/after-failed-keys')).toHaveLength(1);
  }, 40_000);
});
