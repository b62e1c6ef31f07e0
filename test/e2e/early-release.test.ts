/**
 * Runs released seconds before their due time (core/release-spread.ts): claimed early, called at
 * their due second and never before it — and a pause made while a claimed run waits for its
 * second still stops its call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { eventually, type HttpTarget, startHttpTarget } from '../support/http-target.ts';

let chronos: LocalChronos;
let target: HttpTarget;

beforeAll(async () => {
  target = await startHttpTarget(() => ({ status: 200, body: 'ok' }));
  chronos = await startLocalChronos({
    port: 0,
    scannerIntervalMs: 3_600_000,
    scanHorizonSeconds: 30,
    // A run that waits for its second holds its executor invocation (as on Lambda): runs released
    // one by one, as these creates release them, need an invocation each, so the poller may scale to 40.
    sqsConcurrency: 40,
    // Above the fleet's calls in flight (every lane's pollers × 10 records), so the cap can never
    // bind: a capped tenant's runs wait for their second before the claim (execute-run.ts).
    quotas: { maxConcurrentRuns: 1_000 },
    // Every run released 3 s early (besides SQS's whole-second rounding), a burst spread at 10 a second.
    releaseSpread: { baseLeadMs: 3_000, readyPerSecond: 10, maxLeadMs: 6_000 },
    log: () => undefined,
  });
});
afterAll(async () => {
  await chronos?.stop();
  await target?.close();
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

const runsOf = (jobId: string) =>
  api('GET', `/v1/jobs/${jobId}/runs`).then((r) => r.body.items as Array<Record<string, unknown>>);

async function createDueAt(prefix: string, count: number, dueAt: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const created = await api('POST', '/v1/jobs', {
      name: `${prefix}-${i}`,
      target: { url: target.url(`/${prefix}/${i}`), method: 'POST' },
      schedule: { type: 'once', at: new Date(dueAt).toISOString() },
    });
    expect(created.status).toBe(201);
    ids.push(created.body.jobId as string);
  }
  return ids;
}

const sleepUntil = (at: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));

describe('runs released before their due second', () => {
  it('are claimed seconds ahead, then called at the due second and never before it', async () => {
    const dueAt = Math.ceil((Date.now() + 9_000) / 1000) * 1000;
    const ids = await createDueAt('burst', 25, dueAt);
    // 25 runs at 10 a second: released 3, 4 and 5 s early (plus up to a second); all claimed well ahead.
    await sleepUntil(dueAt - 1_200);
    const claimedAhead = (await Promise.all(ids.map(runsOf))).flat();
    expect(claimedAhead.filter((run) => run.status === 'RUNNING')).toHaveLength(25);
    for (const run of claimedAhead) expect(Date.parse(run.claimedAt as string)).toBeLessThan(dueAt - 1_000);

    const calls = await eventually(
      async () => target.calls.filter((call) => call.path.startsWith('/burst/')),
      (found) => found.length >= 25,
      15_000,
    );
    expect(calls).toHaveLength(25);
    for (const call of calls) expect(call.at).toBeGreaterThanOrEqual(dueAt);
    const runs = await eventually(
      async () => (await Promise.all(ids.map(runsOf))).flat(),
      (found) => found.every((run) => run.status === 'SUCCEEDED'),
      10_000,
    );
    for (const run of runs) expect(Date.parse(run.startedAt as string)).toBeGreaterThanOrEqual(dueAt);
  });

  it('are not called when their job is paused while they wait for their second, and end SKIPPED', async () => {
    const dueAt = Math.ceil((Date.now() + 8_000) / 1000) * 1000;
    const ids = await createDueAt('paused', 3, dueAt);
    await eventually(
      async () => (await Promise.all(ids.map(runsOf))).flat(),
      (found) => found.length === 3 && found.every((run) => run.status === 'RUNNING'),
      dueAt - Date.now() - 1_500,
    );
    // Claimed, waiting for the due second: paused now, 1.5 s or more before it.
    for (const id of ids) expect((await api('POST', `/v1/jobs/${id}/pause`)).status).toBe(200);
    const runs = await eventually(
      async () => (await Promise.all(ids.map(runsOf))).flat(),
      (found) => found.every((run) => run.status === 'SKIPPED'),
      dueAt - Date.now() + 8_000,
    );
    for (const run of runs) expect(run.errorType).toBe('paused');
    await sleepUntil(dueAt + 1_000);
    expect(target.calls.filter((call) => call.path.startsWith('/paused/'))).toHaveLength(0);
  });
});
