/**
 * Flow control per key, parallelism (issue #22): 60 runs of one key with `parallelism: 2` against
 * a target that takes 1 s are never more than 2 in flight at the target, and all are called; a
 * waiting run is woken by the run whose slot it takes (no polling), so the key is busy all along.
 * Measured: the SQS messages per waiting run (counted at the SQS client). A slot held by a holder
 * that died (planted in the key: its lease simply ends, never released) is free at its lease end,
 * and the run waiting for it is called then, brought back by its own delayed message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoFlowKeys } from '#adapters/dynamodb/flow-keys';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { type HttpTarget, startHttpTarget } from '../support/http-target.ts';
import { localDocuments } from '../support/local-documents.ts';
import { mostOpenAtOnce } from '../support/overlap.ts';
import { countDispatchSends, type DispatchSends } from './support/dispatch-sends.ts';
import { type Api, apiAs } from './support/tenant-api.ts';

const RUNS = 60;
const SLOTS = 2;
const CALL_MS = 1_000;
/** The key busy all along: RUNS calls of CALL_MS, SLOTS at a time. */
const BUSY_MS = (RUNS / SLOTS) * CALL_MS;

let chronos: LocalChronos;
let target: HttpTarget;
let sends: DispatchSends;
let api: Api;
let tenantId: string;

beforeAll(async () => {
  sends = countDispatchSends();
  target = await startHttpTarget(() => ({ status: 200, delayMs: CALL_MS }));
  chronos = await startLocalChronos({ port: 0, scannerIntervalMs: 1_000, log: () => undefined });
  const tenant = await chronos.tenants.create('flow-slots', { maxConcurrentRuns: 1_000 });
  api = apiAs(chronos.apiUrl, tenant.token.token);
  tenantId = tenant.tenant.tenantId;
}, 60_000);
afterAll(async () => {
  sends?.stop();
  await chronos?.stop();
  await target?.close();
});

describe('flow control: parallelism per key', () => {
  it(`keeps at most ${SLOTS} calls of the key in flight, and calls all ${RUNS} runs`, async () => {
    const at = new Date(Math.ceil((Date.now() + 8_000) / 1000) * 1000).toISOString();
    const jobIds: string[] = [];
    for (let i = 0; i < RUNS; i += 20) {
      const batch = await Promise.all(
        Array.from({ length: 20 }, () =>
          api('POST', '/v1/jobs', {
            target: { url: target.url('/slot') },
            schedule: { type: 'once', at },
            timeoutSeconds: 10,
            flowControl: { key: 'warehouse', parallelism: SLOTS },
          }),
        ),
      );
      for (const answer of batch) {
        expect(answer.status, JSON.stringify(answer.body)).toBe(201);
        jobIds.push(answer.body.jobId);
      }
    }

    await target.waitForCalls('/slot', 10, 30_000);
    const busy = await api('GET', '/v1/flow-control/warehouse');
    expect(busy.status).toBe(200);
    expect(busy.body).toMatchObject({ key: 'warehouse', parallelism: SLOTS });
    expect(busy.body.inFlight).toBeGreaterThanOrEqual(1);
    expect(busy.body.inFlight).toBeLessThanOrEqual(SLOTS);
    expect(busy.body.waiting).toBeGreaterThanOrEqual(RUNS / 2);

    const calls = await target.waitForCalls('/slot', RUNS, BUSY_MS + 60_000);
    await new Promise((resolve) => setTimeout(resolve, CALL_MS + 500));
    expect(calls).toHaveLength(RUNS);
    expect(mostOpenAtOnce(calls)).toBe(SLOTS);
    // The key was kept busy: 60 calls of 1 s two at a time take 30 s, not much more.
    const span = Math.max(...calls.map((call) => call.answeredAt ?? 0)) - Math.min(...calls.map((call) => call.at));
    console.log(`parallelism: ${RUNS} calls in ${span} ms`);
    expect(span).toBeLessThan(BUSY_MS * 1.5);

    const runs = await Promise.all(
      jobIds.map(async (jobId) => {
        for (let i = 0; ; i++) {
          const [run] = (await api('GET', `/v1/jobs/${jobId}/runs`)).body.items;
          if (run?.status === 'SUCCEEDED' || i >= 30) return run;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }),
    );
    expect(runs.every((run) => run?.status === 'SUCCEEDED')).toBe(true);
    const waiting = runs.filter((run) => (run.waitedMs ?? 0) > 0);
    expect(waiting.length).toBeGreaterThanOrEqual(RUNS - 2 * SLOTS);
    // The last ones waited for about 29 calls of 1 s before them: longer than a lease (timeoutSeconds
    // 10), so their fallback came again (counted below).
    expect(Math.max(...waiting.map((run) => run.waitedMs))).toBeGreaterThanOrEqual(BUSY_MS * 0.8);
    const extra = waiting.map((run) => sends.of(run.runId) - 1);
    const perWaitingRun = extra.reduce((sum, n) => sum + n, 0) / waiting.length;
    console.log(
      `parallelism: ${waiting.length} waiting runs, ${perWaitingRun.toFixed(2)} extra SQS messages per waiting run`,
    );
    // A wake and the fallback, and the fallback again for runs waiting longer than a lease: never a poll per second.
    expect(perWaitingRun).toBeLessThanOrEqual(6);

    const idle = await api('GET', '/v1/flow-control/warehouse');
    expect(idle.body).toMatchObject({ inFlight: 0, waiting: 0 });
  }, 170_000);

  it("gives a dead holder's slot back at its lease end: the waiting run is called then, by its own delayed message", async () => {
    // An executor died holding the key's only slot (its run's lease ends in 8 s): nobody will give it back.
    const keys = new DynamoFlowKeys(localDocuments(chronos.endpoints.dynamodb), chronos.tables.tenants);
    await keys.writeLimits(tenantId, { key: 'crashed', parallelism: 1 }, Date.now());
    const leaseEnd = Date.now() + 8_000;
    await keys.change(tenantId, 'crashed', (state) => ({
      result: undefined,
      next: { ...(state as NonNullable<typeof state>), holders: [{ runId: 'DEAD_1_1', until: leaseEnd }] },
    }));

    const job = await api('POST', '/v1/jobs', {
      target: { url: target.url('/after-crash') },
      schedule: { type: 'once' },
      timeoutSeconds: 5,
      flowControl: { key: 'crashed', parallelism: 1 },
    });
    expect(job.status).toBe(201);
    const waiting = await (async () => {
      for (let i = 0; i < 20; i++) {
        const key = (await api('GET', '/v1/flow-control/crashed')).body;
        if (key.waiting === 1) return key;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      return (await api('GET', '/v1/flow-control/crashed')).body;
    })();
    expect(waiting).toMatchObject({ inFlight: 1, waiting: 1 });

    const [call] = await target.waitForCalls('/after-crash', 1, 20_000);
    expect(call?.at).toBeGreaterThanOrEqual(leaseEnd);
    expect((call?.at as number) - leaseEnd).toBeLessThan(3_000);
    let run: { status?: string; waitedMs?: number } | undefined;
    for (let i = 0; i < 30 && run?.status !== 'SUCCEEDED'; i++) {
      [run] = (await api('GET', `/v1/jobs/${job.body.jobId}/runs`)).body.items;
      if (run?.status !== 'SUCCEEDED') await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(run).toMatchObject({ status: 'SUCCEEDED' });
    expect(run?.waitedMs).toBeGreaterThanOrEqual(6_000);
    expect((await api('GET', '/v1/flow-control/crashed')).body).toMatchObject({ inFlight: 0, waiting: 0 });
  }, 60_000);
});
