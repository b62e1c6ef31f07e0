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
});
