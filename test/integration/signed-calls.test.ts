/**
 * Calls as a target receives them over real HTTP (the executor's use case with the real invoker):
 * Standard Webhooks headers that the `standardwebhooks` package verifies with the tenant's secret
 * (with each secret during a rotation), and with no other secret, body or id.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTargetInvoker } from '#adapters/http/invoker';
import { systemClock } from '#adapters/system-clock';
import type { Job } from '#core/model';
import { fixedSigningKeys, newSigningSecret } from '#core/signing';
import { executeRun } from '#core/use-cases/execute-run';
import { newRun } from '#core/use-cases/new-run';
import { InMemoryJobRepository } from '../support/fakes/in-memory-jobs.ts';
import { InMemoryRunRepository } from '../support/fakes/in-memory-runs.ts';
import { type HttpTarget, type RecordedCall, startHttpTarget } from '../support/http-target.ts';
import { jobFixture } from '../support/job-fixture.ts';

const CURRENT = newSigningSecret();
const NEXT = newSigningSecret();
let target: HttpTarget;

beforeAll(async () => {
  target = await startHttpTarget();
});
afterAll(async () => {
  await target.close();
});

async function executeAgainst(jobTarget: Job['target'], secrets: string[]): Promise<RecordedCall> {
  const now = Date.now();
  const job = jobFixture(now, { tenantId: 'tenant-a', jobId: 'J-SIGNED', target: jobTarget, timeoutSeconds: 5 });
  const jobs = new InMemoryJobRepository();
  const runs = new InMemoryRunRepository();
  await jobs.create(job);
  const run = newRun(job, now, 1, now, 7);
  await runs.createIfAbsent(run);
  const before = target.calls.length;
  const result = await executeRun(
    {
      jobs,
      runs,
      invoker: new HttpTargetInvoker(1024, { rules: { allowLoopback: true } }),
      signingKeys: fixedSigningKeys(secrets),
      clock: systemClock,
      random: () => 0.5,
      config: { leaseMarginMs: 30_000, owner: 'signing-test' },
    },
    {
      tenantId: run.tenantId,
      jobId: run.jobId,
      scheduledFor: run.scheduledFor,
      attempt: run.attempt,
      runId: run.runId,
    },
  );
  expect(result).toMatchObject({ kind: 'called', outcome: { status: 'SUCCEEDED' } });
  const [received] = target.calls.slice(before);
  if (!received) throw new Error('the target was not called');
  return received;
}

const headersOf = (call: RecordedCall) => call.headers as Record<string, string>;
const verifies = (secret: string, body: string, headers: Record<string, string>) => {
  try {
    new Webhook(secret).verify(body, headers);
    return true;
  } catch (error) {
    // Only a refused signature or timestamp is a "no": anything else is a broken test.
    if (error instanceof WebhookVerificationError) return false;
    throw error;
  }
};

describe('signed calls, as a target verifies them with standardwebhooks', () => {
  it('verify with each secret of a rotation, and with nothing else', async () => {
    const received = await executeAgainst(
      {
        url: target.url('/signed?team=a'),
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"hello":"world"}',
      },
      [NEXT, CURRENT],
    );
    const headers = headersOf(received);

    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
    expect(headers['webhook-id']).toBe(headers['idempotency-key']);
    expect(headers['chronos-run-id']).toMatch(/\S/);
    expect(verifies(CURRENT, received.body, headers)).toBe(true);
    expect(verifies(NEXT, received.body, headers)).toBe(true);
    expect(verifies(newSigningSecret(), received.body, headers)).toBe(false);
    expect(verifies(CURRENT, '{"hello":"mallory"}', headers)).toBe(false);
    expect(verifies(CURRENT, received.body, { ...headers, 'webhook-id': 'J-OTHER:1' })).toBe(false);
    const stale = String(Number(headers['webhook-timestamp']) - 600);
    expect(verifies(CURRENT, received.body, { ...headers, 'webhook-timestamp': stale })).toBe(false);
    expect(headers['chronos-signature']).toBeUndefined();
    expect(headers['chronos-timestamp']).toBeUndefined();
  });

  it('signs a GET over the empty body it sends', async () => {
    const received = await executeAgainst(
      { url: target.url('/signed-get'), method: 'GET', headers: {}, body: 'not sent' },
      [CURRENT],
    );
    expect(received).toMatchObject({ method: 'GET', body: '' });
    expect(verifies(CURRENT, '', headersOf(received))).toBe(true);
  });
});
