/**
 * One tenant's flood must not delay another's runs: tenant A floods 300 immediate jobs at a slow
 * target; tenant B's jobs due during the flood still start within its SLA (5 s), because the
 * executor caps each tenant's calls in flight (A's maxConcurrentRuns: 4, below the 8 local executor
 * workers) and sends A's excess back to the queue with a growing delay.
 *
 * Slack: the SLA bound (5 s) is the requirement; on an idle machine B starts within about a second.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { type HttpTarget, startHttpTarget } from '../support/http-target.ts';
import { mostOpenAtOnce } from '../support/overlap.ts';
import { bystanderLags } from './support/bystander-lags.ts';
import { apiAs } from './support/tenant-api.ts';

const FLOOD = 300;
const SLOW_MS = 3_000;
const SLA_MS = 5_000;
/** Tenant A's maxConcurrentRuns. */
const A_CAP = 4;

let chronos: LocalChronos;
let target: HttpTarget;

beforeAll(async () => {
  target = await startHttpTarget((path) => (path === '/flood' ? { status: 200, delayMs: SLOW_MS } : { status: 200 }));
  chronos = await startLocalChronos({
    port: 0,
    scannerIntervalMs: 1_000,
    scanHorizonSeconds: 10,
    log: () => undefined,
  });
}, 60_000);
afterAll(async () => {
  await chronos?.stop();
  await target?.close();
});

describe('fairness between tenants', () => {
  it("keeps tenant B's start lag within its SLA while tenant A floods a slow target", async () => {
    // A's cap stays below the 8 local executor workers (a deployed stage enforces this for every tenant).
    const a = await chronos.tenants.create('flooder', { maxConcurrentRuns: A_CAP });
    const b = await chronos.tenants.create('bystander');
    const apiA = apiAs(chronos.apiUrl, a.token.token);
    const apiB = apiAs(chronos.apiUrl, b.token.token);

    // A's flood: 300 jobs due now, created 20 at a time.
    for (let i = 0; i < FLOOD; i += 20) {
      const batch = await Promise.all(
        Array.from({ length: 20 }, () =>
          apiA('POST', '/v1/jobs', { target: { url: target.url('/flood') }, schedule: { type: 'once' } }),
        ),
      );
      expect(batch.every((answer) => answer.status === 201)).toBe(true);
    }
    await target.waitForCalls('/flood', A_CAP, 10_000);

    // B's jobs, due a few seconds into the flood (A's queue is then at its fullest).
    const lags = await bystanderLags(apiB, target, [3_000, 5_000, 7_000, 9_000, 11_000]);

    const floodCallsSoFar = target.callsTo('/flood').length;
    expect(floodCallsSoFar).toBeLessThan(FLOOD); // A was still flooding while B ran

    // A's cap held: never more than 4 of its calls open at the target at once, and the flood did
    // reach the cap (so B's lags below are won against a tenant pushing at it, not an idle one).
    const flood = target.callsTo('/flood');
    expect(flood.filter((call) => call.answeredAt !== undefined).length).toBeGreaterThanOrEqual(2 * A_CAP);
    expect(mostOpenAtOnce(flood)).toBe(A_CAP);

    expect(Math.max(...lags)).toBeLessThanOrEqual(SLA_MS);
    expect(Math.min(...lags)).toBeGreaterThanOrEqual(0); // never early
  }, 120_000);
});
