import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { LocalSecretCipher } from '#adapters/secrets/local-cipher';
import { storedSigningKeys } from '#adapters/signing-keys';
import type { Job } from '#core/model';
import { fixedSigningKeys, newSigningSecret, signFor, webhookHeaders } from '#core/signing';
import {
  listSigningSecrets,
  MAX_SIGNING_SECRETS,
  openSigningSecrets,
  rotateSigningSecret,
} from '#core/tenants/signing-secrets';
import { executeRun } from '#core/use-cases/execute-run';
import { newRun } from '#core/use-cases/new-run';
import { FakeClock, ScriptedInvoker, sequentialIds } from '../../support/fakes/fakes.ts';
import { InMemoryJobRepository } from '../../support/fakes/in-memory-jobs.ts';
import { InMemoryRunRepository } from '../../support/fakes/in-memory-runs.ts';
import { InMemorySigningSecrets } from '../../support/fakes/in-memory-signing-secrets.ts';
import { jobFixture } from '../../support/job-fixture.ts';

// `chronos-test-key-0123456789abcdef` (33 bytes), base64.
const KNOWN = 'whsec_Y2hyb25vcy10ZXN0LWtleS0wMTIzNDU2Nzg5YWJjZGVm';
const AT = Date.parse('2026-01-01T00:00:00Z'); // 1767225600 s
const HOUR = 3_600_000;

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

describe('signing a message (Standard Webhooks)', () => {
  it('signs `<id>.<timestamp>.<body>` with HMAC-SHA256 of the decoded secret', () => {
    // Computed independently: printf 'J1:1767225600000.1767225600.{"a":1}' | openssl dgst -sha256 -mac HMAC -macopt hexkey:<key> -binary | base64
    expect(webhookHeaders({ id: 'J1:1767225600000', body: '{"a":1}' }, [KNOWN], AT + 999)).toEqual({
      'webhook-id': 'J1:1767225600000',
      'webhook-timestamp': '1767225600',
      'webhook-signature': 'v1,bnQ4mWp8AViY11oOHoIlT9ub3iPF92Zcwqx+IW6Dmp4=',
    });
  });

  it('carries one signature per secret, each verifiable on its own', () => {
    const [a, b] = [newSigningSecret(), newSigningSecret()];
    const headers = webhookHeaders({ id: 'J1:1', body: '{"x":1}' }, [a, b], Date.now());
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verifies(a, '{"x":1}', headers)).toBe(true);
    expect(verifies(b, '{"x":1}', headers)).toBe(true);
    expect(verifies(newSigningSecret(), '{"x":1}', headers)).toBe(false);
  });

  it('refuses to sign without a secret: no call goes out unsigned', async () => {
    expect(() => webhookHeaders({ id: 'J1:1' }, [], AT)).toThrow(/no signing secret/);
    await expect(signFor(fixedSigningKeys([]), 't', { id: 'J1:1' }, AT)).rejects.toThrow(/no signing secret/);
  });

  it('makes secrets in the whsec_ format from 32 random bytes', () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newSigningSecret()).not.toBe(secret);
  });
});

describe('a tenant’s signing secrets', () => {
  const cipher = new LocalSecretCipher(LocalSecretCipher.generateKey());
  const depsWith = (store = new InMemorySigningSecrets()) => ({ secrets: store, cipher, ids: sequentialIds() });

  it('are stored sealed for the tenant and listed by prefix only', async () => {
    const deps = depsWith();
    const issued = await rotateSigningSecret(deps, 't', AT, 0);
    const [stored] = deps.secrets.items.values();
    expect(JSON.stringify(stored)).not.toContain(issued.secret.slice(6));
    expect(await cipher.open(stored?.sealed ?? '', { tenantId: 't', purpose: 'chronos-signing-secret' })).toBe(
      issued.secret,
    );
    await expect(
      cipher.open(stored?.sealed ?? '', { tenantId: 'u', purpose: 'chronos-signing-secret' }),
    ).rejects.toThrow();
    const listed = await listSigningSecrets(deps, 't', AT);
    expect(listed).toEqual([
      { secretId: issued.secretId, tenantId: 't', prefix: issued.secret.slice(0, 10), createdAt: AT },
    ]);
    expect(JSON.stringify(listed)).not.toContain(issued.secret);
  });

  it('keep the previous secret signing through the overlap window, then only the new one', async () => {
    const deps = depsWith();
    const first = await rotateSigningSecret(deps, 't', AT, 0);
    const second = await rotateSigningSecret(deps, 't', AT + HOUR); // default 24 h
    const signingAt = async (at: number) => (await openSigningSecrets(deps, 't', at)).map((s) => s.secret);

    expect(await signingAt(AT + HOUR)).toEqual([second.secret, first.secret]);
    expect(await signingAt(AT + 25 * HOUR - 1)).toEqual([second.secret, first.secret]);
    expect(await signingAt(AT + 25 * HOUR)).toEqual([second.secret]);
    expect((await listSigningSecrets(deps, 't', AT + HOUR)).map((s) => s.expiresAt)).toEqual([
      undefined,
      AT + 25 * HOUR,
    ]);
  });

  it('stop the previous secret at once with an overlap of 0, and refuse overlaps beyond 168 h', async () => {
    const deps = depsWith();
    await rotateSigningSecret(deps, 't', AT, 0);
    const second = await rotateSigningSecret(deps, 't', AT + 1, 0);
    expect((await openSigningSecrets(deps, 't', AT + 1)).map((s) => s.secret)).toEqual([second.secret]);
    await expect(rotateSigningSecret(deps, 't', AT, 169)).rejects.toThrow(/0 to 168/);
    await expect(rotateSigningSecret(deps, 't', AT, 1.5)).rejects.toThrow(/0 to 168/);
  });

  it('never sign with more than a few at once, however often they are rotated, and forget expired ones', async () => {
    const deps = depsWith();
    for (let i = 0; i < 10; i += 1) await rotateSigningSecret(deps, 't', AT + i, 24);
    expect(await openSigningSecrets(deps, 't', AT + 10)).toHaveLength(MAX_SIGNING_SECRETS);
    expect(deps.secrets.items.size).toBeLessThanOrEqual(2 * MAX_SIGNING_SECRETS);
  });

  it('cannot be issued for an unknown tenant', async () => {
    await expect(rotateSigningSecret(depsWith(), 'nobody', AT)).rejects.toThrow(/tenant nobody/);
  });
});

describe('the executor’s signing keys (stored, cached per process)', () => {
  const cipher = new LocalSecretCipher(LocalSecretCipher.generateKey());

  it('reuse opened secrets for a while, drop an expired one at once and pick up a rotation after the cache', async () => {
    const store = new InMemorySigningSecrets();
    const deps = { secrets: store, cipher, ids: sequentialIds() };
    let now = AT;
    const keys = storedSigningKeys(deps, { cacheMs: 30_000, now: () => now });
    const first = await rotateSigningSecret(deps, 't', AT, 0);
    expect(await keys.keysFor('t')).toEqual([first.secret]);
    const second = await rotateSigningSecret(deps, 't', AT + 1000, 1);
    now = AT + 10_000;
    expect(await keys.keysFor('t')).toEqual([first.secret]);
    expect(store.lists).toBe(3); // one read by the cache, one per rotation
    now = AT + 31_000;
    expect(await keys.keysFor('t')).toEqual([second.secret, first.secret]);
    now = AT + 1000 + HOUR;
    expect(await keys.keysFor('t')).toEqual([second.secret]);
  });

  it('fail for a tenant without a secret, so its calls are held back rather than sent unsigned', async () => {
    const keys = storedSigningKeys({ secrets: new InMemorySigningSecrets(), cipher });
    await expect(keys.keysFor('t')).rejects.toThrow(/signing secret of tenant t/);
  });
});

describe('the executor signs every call', () => {
  const DUE = Date.parse('2026-06-01T12:00:00Z');
  const job: Job = jobFixture(DUE, {
    target: { url: 'https://example.com/hook', method: 'POST', headers: { 'x-team': 'a' }, body: '{"a":1}' },
    retry: { maxAttempts: 2, initialDelaySeconds: 1, maxDelaySeconds: 300, multiplier: 2 },
  });

  async function callOf(target: Job['target'], keysFor: (tenantId: string) => Promise<string[]>, attempt = 1) {
    const jobs = new InMemoryJobRepository();
    const runs = new InMemoryRunRepository();
    const clock = new FakeClock(DUE - 400);
    const invoker = new ScriptedInvoker(clock, () => ({
      kind: 'response',
      status: 200,
      bodyExcerpt: '',
      durationMs: 1,
    }));
    await jobs.create({ ...job, target });
    const run = newRun(job, DUE, attempt, DUE - 60_000, 7);
    await runs.createIfAbsent(run);
    const deps = { jobs, runs, invoker, signingKeys: { keysFor }, clock, random: () => 0.5 };
    await executeRun({ ...deps, config: { leaseMarginMs: 30_000, owner: 'e' } }, { ...run, runId: run.runId });
    const [request] = invoker.requests;
    if (!request) throw new Error('the target was not called');
    return { ...request, runId: run.runId };
  }

  it('signs what it sends with the tenant’s secrets, webhook-id being the occurrence', async () => {
    const [current, next] = [newSigningSecret(), newSigningSecret()];
    const asked: string[] = [];
    const request = await callOf(job.target, async (tenantId) => {
      asked.push(tenantId);
      return [next, current];
    });

    expect(asked).toEqual(['t']);
    expect(request.headers).toMatchObject({
      'x-team': 'a',
      'Idempotency-Key': `J1:${DUE}`,
      'Chronos-Run-Id': request.runId,
      'webhook-id': `J1:${DUE}`,
      'webhook-timestamp': String(Math.floor(DUE / 1000)),
    });
    // standardwebhooks checks the timestamp against the real clock: verify at the due time.
    const headers = request.headers as Record<string, string>;
    const fresh = {
      ...headers,
      ...webhookHeaders({ id: headers['webhook-id'] ?? '', body: '{"a":1}' }, [current], DUE),
    };
    expect(fresh['webhook-signature']).toBe(headers['webhook-signature']?.split(' ')[1]);
  });

  it('keeps webhook-id across attempts of the same occurrence', async () => {
    const secret = newSigningSecret();
    const first = await callOf(job.target, async () => [secret], 1);
    const retry = await callOf(job.target, async () => [secret], 2);
    expect(retry.runId).not.toBe(first.runId);
    expect(retry.headers['webhook-id']).toBe(first.headers['webhook-id']);
  });

  it('signs a GET over the empty body it sends', async () => {
    const secret = newSigningSecret();
    const request = await callOf({ ...job.target, method: 'GET' }, async () => [secret]);
    expect(request.body).toBeUndefined();
    const expected = webhookHeaders({ id: `J1:${DUE}` }, [secret], DUE);
    expect(request.headers['webhook-signature']).toBe(expected['webhook-signature']);
  });
});
