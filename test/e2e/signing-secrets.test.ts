/**
 * Per-tenant signing secrets end to end (issue #13 §1): tenants created the way `npm run admin`
 * creates them, every call verified as a target verifies it — with the `standardwebhooks`
 * package and the tenant's own secret, never with another tenant's — rotation with an overlap,
 * listings without values, and the same webhook-id across a retry.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { type HttpTarget, type RecordedCall, startHttpTarget } from '../support/http-target.ts';
import { adminTenant as newAdminTenant } from './support/admin-tenant.ts';
import { type Api, apiAs } from './support/tenant-api.ts';

let chronos: LocalChronos;
let target: HttpTarget;
/** Answers 500 to the first call of each path under /flaky/, then 200. */
const failedOnce = new Set<string>();

beforeAll(async () => {
  target = await startHttpTarget((path) => {
    if (path.startsWith('/flaky/') && !failedOnce.has(path)) {
      failedOnce.add(path);
      return { status: 500 };
    }
    return { status: 200 };
  });
  chronos = await startLocalChronos({ port: 0, scannerIntervalMs: 500, scanHorizonSeconds: 5, log: () => undefined });
});
afterAll(async () => {
  await chronos?.stop();
  await target?.close();
});

/** A tenant made as `npm run admin` makes one (`tenants create`, `tokens create`). */
const adminTenant = (name: string) => newAdminTenant(chronos, name);

const verifies = (secret: string, call: RecordedCall) => {
  try {
    new Webhook(secret).verify(call.body, call.headers as Record<string, string>);
    return true;
  } catch (error) {
    if (error instanceof WebhookVerificationError) return false;
    throw error;
  }
};

async function callOnce(api: Api, path: string, extra: Record<string, unknown> = {}) {
  const created = await api('POST', '/v1/jobs', {
    target: { url: target.url(path), method: 'POST', body: JSON.stringify({ path }) },
    schedule: { type: 'once' },
    ...extra,
  });
  expect(created.status).toBe(201);
  return created.body.jobId as string;
}

describe('per-tenant signing secrets', () => {
  it('signs each tenant’s calls with its own secret: verifiable with it, never with another tenant’s', async () => {
    const [alpha, beta] = [await adminTenant('alpha'), await adminTenant('beta')];
    expect(alpha.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(alpha.secret).not.toBe(beta.secret);

    await callOnce(alpha.api, '/alpha');
    await callOnce(beta.api, '/beta');
    const [toAlpha] = await target.waitForCalls('/alpha', 1, 15_000);
    const [toBeta] = await target.waitForCalls('/beta', 1, 15_000);
    if (!toAlpha || !toBeta) throw new Error('no call');

    expect(verifies(alpha.secret, toAlpha)).toBe(true);
    expect(verifies(beta.secret, toBeta)).toBe(true);
    expect(verifies(beta.secret, toAlpha)).toBe(false);
    expect(verifies(alpha.secret, toBeta)).toBe(false);
    expect(verifies(chronos.signingSecret, toAlpha)).toBe(false);
    expect(toAlpha.headers['webhook-id']).toBe(toAlpha.headers['idempotency-key']);
    expect(toAlpha.headers['chronos-run-id']).toMatch(/\S/);
    expect(toAlpha.headers['chronos-signature']).toBeUndefined();
  }, 30_000);

  it('signs the dev tenant’s calls with the secret the local runtime prints', async () => {
    await callOnce(apiAs(chronos.apiUrl, chronos.token), '/dev');
    const [call] = await target.waitForCalls('/dev', 1, 15_000);
    if (!call) throw new Error('no call');
    expect(verifies(chronos.signingSecret, call)).toBe(true);
  }, 30_000);

  it('keeps the old secret signing alongside the new one after a rotation, and lists neither value', async () => {
    const gamma = await adminTenant('gamma');
    const other = await adminTenant('bystander');
    const bystanderBefore = (await other.api('GET', '/v1/signing-secrets')).body;

    const rotated = await gamma.api('POST', '/v1/signing-secrets', {});
    expect(rotated.status).toBe(201);
    const fresh = rotated.body.secret as string;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(gamma.secret);
    await callOnce(gamma.api, '/gamma');
    const [call] = await target.waitForCalls('/gamma', 1, 15_000);
    if (!call) throw new Error('no call');

    expect(String(call.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifies(gamma.secret, call)).toBe(true);
    expect(verifies(fresh, call)).toBe(true);

    const listed = await gamma.api('GET', '/v1/signing-secrets');
    expect(listed.status).toBe(200);
    expect(listed.body.items).toHaveLength(2);
    const [newest, previous] = listed.body.items;
    expect(newest).toEqual({
      secretId: rotated.body.secretId,
      prefix: fresh.slice(0, 10),
      createdAt: rotated.body.createdAt,
    });
    expect(Date.parse(previous.expiresAt) - Date.parse(rotated.body.createdAt)).toBe(24 * 3_600_000);
    expect(rotated.body.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);
    for (const secret of [gamma.secret, fresh]) expect(JSON.stringify(listed.body)).not.toContain(secret.slice(10, 30));
    // Another tenant's rotation touches nothing of this one.
    expect((await other.api('GET', '/v1/signing-secrets')).body).toEqual(bystanderBefore);
  }, 30_000);

  it('rotates with no body, and refuses an overlap beyond a week with 400', async () => {
    const delta = await adminTenant('delta');
    expect((await delta.api('POST', '/v1/signing-secrets')).status).toBe(201);
    const refused = await delta.api('POST', '/v1/signing-secrets', { overlapHours: 169 });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details[0].field).toMatch(/overlapHours/);
    expect((await delta.api('POST', '/v1/signing-secrets', { overlapHours: 0 })).status).toBe(201);
    // The 0-hour rotation ended both earlier secrets at once: only the newest signs.
    expect((await delta.api('GET', '/v1/signing-secrets')).body.items).toHaveLength(1);
  }, 30_000);

  it('keeps webhook-id across a retry of the same occurrence, each attempt verifiable', async () => {
    const epsilon = await adminTenant('epsilon');
    await callOnce(epsilon.api, '/flaky/epsilon', {
      retry: { maxAttempts: 2, initialDelaySeconds: 1, maxDelaySeconds: 1 },
    });
    const [first, retry] = await target.waitForCalls('/flaky/epsilon', 2, 20_000);
    if (!first || !retry) throw new Error('no retry');
    expect(retry.headers['chronos-run-id']).not.toBe(first.headers['chronos-run-id']);
    expect(retry.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(verifies(epsilon.secret, first)).toBe(true);
    expect(verifies(epsilon.secret, retry)).toBe(true);
  }, 30_000);
});
