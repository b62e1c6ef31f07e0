import { describe, expect, it } from 'vitest';
import { signingKeysFromEnv } from '#adapters/signing-keys';
import type { Job } from '#core/model';
import {
  canonicalString,
  fixedSigningKeys,
  SIGNATURE_HEADER,
  signatureHeaders,
  TIMESTAMP_HEADER,
  verifySignature,
} from '#core/signing';
import { executeRun } from '#core/use-cases/execute-run';
import { newRun } from '#core/use-cases/new-run';
import { FakeClock, ScriptedInvoker } from '../../support/fakes/fakes.ts';
import { InMemoryJobRepository } from '../../support/fakes/in-memory-jobs.ts';
import { InMemoryRunRepository } from '../../support/fakes/in-memory-runs.ts';
import { jobFixture } from '../../support/job-fixture.ts';

const CURRENT = 'whsec_test_secret_0123456789abcdef0123';
const NEXT = 'whsec_next_secret_0123456789abcdef0123';
const AT = Date.parse('2026-01-01T00:00:00Z'); // 1767225600 s
const REQUEST = { method: 'POST', url: 'https://example.com/hook?x=1', body: '{"a":1}' };

// Computed independently: printf '1767225600\nPOST\nhttps://example.com/hook?x=1\n{"a":1}' | openssl dgst -sha256 -hmac <secret>
const CURRENT_SIGNATURE = '1781ae68a70006e8c50475d683aeb812e099f09903dfe03b694147a28df610a0';
const NEXT_SIGNATURE = '355cfb8090fffd5884795ad7941d8a145417a0c3a5a6c8947a1d0125e8212994';

const headersOf = (h: Record<string, string>) => ({ timestamp: h[TIMESTAMP_HEADER], signature: h[SIGNATURE_HEADER] });

describe('signing a call', () => {
  it('signs timestamp, method, URL and body with HMAC-SHA256 (known vector)', () => {
    expect(canonicalString(1767225600, REQUEST)).toBe('1767225600\nPOST\nhttps://example.com/hook?x=1\n{"a":1}');
    expect(signatureHeaders(REQUEST, { current: CURRENT }, AT + 999)).toEqual({
      'Chronos-Timestamp': '1767225600',
      'Chronos-Signature': `v1=${CURRENT_SIGNATURE}`,
    });
  });

  it('signs with both secrets while a next one is configured, current first', () => {
    expect(signatureHeaders(REQUEST, { current: CURRENT, next: NEXT }, AT)[SIGNATURE_HEADER]).toBe(
      `v1=${CURRENT_SIGNATURE},v1=${NEXT_SIGNATURE}`,
    );
  });

  it('signs a body-less GET with an empty body line', () => {
    const headers = signatureHeaders({ method: 'get', url: 'https://example.com' }, { current: CURRENT }, AT);
    expect(headers[SIGNATURE_HEADER]).toBe('v1=f1e668d7808c19a8ddb61ab6c2bb35d848894595955d4c83be19ae36f5177196');
  });

  it('signs the URL as the URL standard serializes it', () => {
    const spelled = { ...REQUEST, url: 'https://EXAMPLE.com:443/hook?x=1' };
    expect(signatureHeaders(spelled, { current: CURRENT }, AT)[SIGNATURE_HEADER]).toBe(`v1=${CURRENT_SIGNATURE}`);
  });
});

describe('verifying a call', () => {
  const rotated = headersOf(signatureHeaders(REQUEST, { current: CURRENT, next: NEXT }, AT));

  it('accepts a call signed with either secret during a rotation', () => {
    expect(verifySignature(rotated, REQUEST, CURRENT, AT)).toBe(true);
    expect(verifySignature(rotated, REQUEST, NEXT, AT)).toBe(true);
  });

  it('refuses the next secret when only the current one signed', () => {
    const single = headersOf(signatureHeaders(REQUEST, { current: CURRENT }, AT));
    expect(verifySignature(single, REQUEST, CURRENT, AT)).toBe(true);
    expect(verifySignature(single, REQUEST, NEXT, AT)).toBe(false);
  });

  it('refuses a tampered body, URL, method or timestamp', () => {
    expect(verifySignature(rotated, { ...REQUEST, body: '{"a":2}' }, CURRENT, AT)).toBe(false);
    expect(verifySignature(rotated, { ...REQUEST, url: 'https://example.com/hook?x=2' }, CURRENT, AT)).toBe(false);
    expect(verifySignature(rotated, { ...REQUEST, method: 'PUT' }, CURRENT, AT)).toBe(false);
    expect(verifySignature({ ...rotated, timestamp: '1767225601' }, REQUEST, CURRENT, AT)).toBe(false);
  });

  it('refuses a timestamp outside the tolerance, and malformed headers', () => {
    expect(verifySignature(rotated, REQUEST, CURRENT, AT + 301_000)).toBe(false);
    expect(verifySignature(rotated, REQUEST, CURRENT, AT - 301_000)).toBe(false);
    expect(verifySignature(rotated, REQUEST, CURRENT, AT + 299_000)).toBe(true);
    expect(verifySignature({ timestamp: undefined, signature: rotated.signature }, REQUEST, CURRENT, AT)).toBe(false);
    expect(verifySignature({ timestamp: rotated.timestamp, signature: 'v1=abc' }, REQUEST, CURRENT, AT)).toBe(false);
    expect(verifySignature({ timestamp: '1.7e9', signature: rotated.signature }, REQUEST, CURRENT, AT)).toBe(false);
  });

  it('refuses another secret', () => {
    expect(verifySignature(rotated, REQUEST, 'some-other-secret-0123456789abcdefgh', AT)).toBe(false);
  });
});

describe('signing keys from the environment', () => {
  it('reads the current secret and, during a rotation, the next one', async () => {
    const keys = signingKeysFromEnv({ SIGNING_SECRET_CURRENT: CURRENT, SIGNING_SECRET_NEXT: NEXT });
    expect(await keys.keysFor('any-tenant')).toEqual({ current: CURRENT, next: NEXT });
    expect(await signingKeysFromEnv({ SIGNING_SECRET_CURRENT: CURRENT }).keysFor('t')).toEqual({ current: CURRENT });
  });

  it('refuses a missing or short secret', () => {
    expect(() => signingKeysFromEnv({})).toThrow(/SIGNING_SECRET_CURRENT is not set/);
    expect(() => signingKeysFromEnv({ SIGNING_SECRET_CURRENT: 'short' })).toThrow(/at least 32 characters/);
    expect(() => signingKeysFromEnv({ SIGNING_SECRET_CURRENT: CURRENT, SIGNING_SECRET_NEXT: 'short' })).toThrow(
      /SIGNING_SECRET_NEXT/,
    );
  });
});

describe('the executor signs every call', () => {
  const DUE = Date.parse('2026-06-01T12:00:00Z');
  const job: Job = jobFixture(DUE, {
    target: { url: 'https://example.com/hook', method: 'POST', headers: { 'x-team': 'a' }, body: '{"a":1}' },
    retry: { maxAttempts: 1, initialDelaySeconds: 1, maxDelaySeconds: 300, multiplier: 2 },
  });

  async function callOf(
    target: Job['target'],
    keysFor: (tenantId: string) => Promise<{ current: string; next?: string }>,
  ) {
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
    const run = newRun(job, DUE, 1, DUE - 60_000, 7);
    await runs.createIfAbsent(run);
    const deps = { jobs, runs, invoker, signingKeys: { keysFor }, clock, random: () => 0.5 };
    await executeRun({ ...deps, config: { leaseMarginMs: 30_000, owner: 'e' } }, { ...run, runId: run.runId });
    const [request] = invoker.requests;
    if (!request) throw new Error('the target was not called');
    return request;
  }

  it('adds timestamp and signatures over what it sends, with the tenant’s keys', async () => {
    const asked: string[] = [];
    const request = await callOf(job.target, async (tenantId) => {
      asked.push(tenantId);
      return { current: CURRENT, next: NEXT };
    });

    expect(asked).toEqual(['t']);
    expect(request.headers[TIMESTAMP_HEADER]).toBe(String(Math.floor(DUE / 1000)));
    const headers = headersOf(request.headers);
    expect(verifySignature(headers, request, CURRENT, DUE)).toBe(true);
    expect(verifySignature(headers, request, NEXT, DUE)).toBe(true);
    expect(request.headers).toMatchObject({ 'x-team': 'a', 'Idempotency-Key': `J1:${DUE}` });
  });

  it('signs a GET without the body it does not send', async () => {
    const request = await callOf({ ...job.target, method: 'GET' }, async () => ({ current: CURRENT }));
    expect(request.body).toBeUndefined();
    expect(verifySignature(headersOf(request.headers), { ...request, body: undefined }, CURRENT, DUE)).toBe(true);
  });
});

it('keeps fixed keys the same for every tenant', async () => {
  const keys = fixedSigningKeys({ current: CURRENT });
  expect(await keys.keysFor('a')).toEqual(await keys.keysFor('b'));
});
