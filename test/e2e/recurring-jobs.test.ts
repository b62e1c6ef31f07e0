/** Recurring schedules end to end: the scanner timer keeps materializing occurrences ahead. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { eventually, type HttpTarget, startHttpTarget } from '../support/http-target.ts';

const HORIZON_S = 10;
let chronos: LocalChronos;
let target: HttpTarget;

beforeAll(async () => {
  target = await startHttpTarget();
  chronos = await startLocalChronos({
    port: 0,
    scannerIntervalMs: 3_000,
    scanHorizonSeconds: HORIZON_S,
    // These tests race scanners, not tenants: the dev tenant's in-flight quota is as large as the
    // local executor (8 workers x 10), so its bursts are not throttled by the fairness cap.
    quotas: { maxConcurrentRuns: 80 },
    log: () => undefined,
  });
});
afterAll(async () => {
  await chronos?.stop();
  await target?.close();
});

async function createJob(body: unknown): Promise<string> {
  const response = await fetch(`${chronos.apiUrl}/v1/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${chronos.token}` },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as { jobId: string };
  expect(response.status).toBe(201);
  return json.jobId;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('recurring jobs end to end', () => {
  it('calls an every-2-seconds job 2 s apart for 20 s, with no gap and no duplicate', async () => {
    const startAt = Date.now() + 1_000;
    await createJob({
      target: { url: target.url('/every-2s') },
      schedule: { type: 'interval', everySeconds: 2, startAt: new Date(startAt).toISOString() },
    });

    await sleep(startAt + 20_000 - Date.now() + 800);
    const calls = target.callsTo('/every-2s').filter((c) => c.at <= startAt + 20_500);

    expect(calls.length).toBe(11); // occurrences at +0, +2, ... +20 s
    const keys = calls.map((c) => c.headers['idempotency-key']);
    expect(new Set(keys).size).toBe(calls.length);
    calls.forEach((call, k) => {
      const due = startAt + k * 2_000;
      expect(call.at).toBeGreaterThanOrEqual(due);
      expect(call.at - due).toBeLessThanOrEqual(1_000);
    });
  }, 40_000);

  it('completes a job whose maxRuns ran out once its final occurrence ran, through the scanner', async () => {
    const startAt = Date.now() + (HORIZON_S + 1) * 1_000; // beyond the horizon: the scanner materializes it
    const jobId = await createJob({
      target: { url: target.url('/three-times') },
      schedule: { type: 'interval', everySeconds: 1, startAt: new Date(startAt).toISOString(), maxRuns: 3 },
    });
    const statusOf = async () => {
      const response = await fetch(`${chronos.apiUrl}/v1/jobs/${jobId}`, {
        headers: { authorization: `Bearer ${chronos.token}` },
      });
      return ((await response.json()) as { status: string }).status;
    };

    expect(await statusOf()).toBe('ACTIVE');
    expect(await eventually(statusOf, (status) => status === 'COMPLETED', 30_000)).toBe('COMPLETED');
    expect(target.callsTo('/three-times')).toHaveLength(3);
  }, 45_000);

  it('makes no duplicate occurrence when 4 scanners race on 500 recurring jobs for 3 scan cycles', async () => {
    const startAt = Date.now() + (HORIZON_S + 6) * 1_000; // beyond the horizon: creation materializes nothing
    const schedule = { type: 'interval', everySeconds: 5, startAt: new Date(startAt).toISOString(), maxRuns: 3 };
    for (let batch = 0; batch < 25; batch++) {
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          createJob({ target: { url: target.url(`/swarm/${batch * 20 + i}`) }, schedule }),
        ),
      );
    }

    for (let cycle = 0; cycle < 3; cycle++) {
      await Promise.all([
        chronos.invokeScanner(),
        chronos.invokeScanner(),
        chronos.invokeScanner(),
        chronos.invokeScanner(),
      ]);
      await sleep(5_000);
    }

    const swarm = () => target.calls.filter((c) => c.path.startsWith('/swarm/'));
    // A 500-call burst takes the emulators several seconds to drain; this test is about duplicates, not lag.
    await eventually(
      async () => swarm().length,
      (n) => n >= 1_500,
      startAt + 10_000 - Date.now() + 60_000,
    );
    await sleep(1_500); // room for any duplicate to show up
    const keys = swarm().map((c) => `${c.path} ${c.headers['idempotency-key']}`);
    expect(keys).toHaveLength(1_500);
    expect(new Set(keys).size).toBe(1_500);
    for (const call of swarm()) expect(call.at).toBeGreaterThanOrEqual(startAt);
  }, 240_000);
});
