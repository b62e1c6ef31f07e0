/**
 * The client package's webhook helper (client/src/webhooks.ts) against real calls of the local
 * runtime: a target that verifies each call with it and answers 401 when it refuses, through a
 * signing-secret rotation (a target holding only the old, only the new, or both secrets), and the
 * same real calls refused once their body is changed or their timestamp is out of tolerance.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { verifyWebhook, type WebhookVerification } from '../../client/src/webhooks.ts';
import { eventually } from '../support/http-target.ts';
import { adminTenant } from './support/admin-tenant.ts';
import { type Api, apiAs } from './support/tenant-api.ts';

interface Received {
  path: string;
  body: Buffer;
  headers: Record<string, string | string[] | undefined>;
  verdict: WebhookVerification;
}

let chronos: LocalChronos;
let api: Api;
let server: Server;
let base: string;
const received: Received[] = [];
/** The secrets the target holds, by path: what a team has configured at each moment of a rotation. */
const secretsByPath = new Map<string, string[]>();

beforeAll(async () => {
  chronos = await startLocalChronos({ port: 0, scannerIntervalMs: 500, scanHorizonSeconds: 5, log: () => undefined });
  api = apiAs(chronos.apiUrl, chronos.token);
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const path = req.url ?? '/';
    const verdict = verifyWebhook(body, req.headers, { secrets: secretsByPath.get(path) ?? [chronos.signingSecret] });
    received.push({ path, body, headers: req.headers, verdict });
    res.writeHead(verdict.ok ? 200 : 401).end(verdict.ok ? 'verified' : verdict.reason);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  await chronos?.stop();
  await new Promise((resolve) => server?.close(resolve));
});

/**
 * A tenant made as `npm run admin` makes one: its API and the signing secret shown once. A fresh
 * tenant, so no executor holds its secrets in its cache (30 s) when it rotates them.
 */
async function newTenant(name: string): Promise<{ api: Api; secret: string }> {
  return adminTenant(chronos, name);
}

/** Creates a one-time job calling `path` now; resolves with what the target received and the run. */
async function callOnce(path: string, body: unknown = { hello: 'wörld', path }, as: Api = api) {
  const created = await as('POST', '/v1/jobs', { target: { url: `${base}${path}`, body }, schedule: { type: 'once' } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const run = await eventually(
    async () => (await as('GET', `/v1/jobs/${created.body.jobId}/runs`)).body.items[0],
    (latest) => latest !== undefined && latest.status !== 'QUEUED' && latest.status !== 'RUNNING',
    20_000,
  );
  const call = received.find((r) => r.path === path);
  if (!call) throw new Error(`no call to ${path}`);
  return { call, run };
}

describe('verifyWebhook against calls the local runtime makes', () => {
  it('verifies a real call, so the run succeeds; a target with another secret refuses it (401)', async () => {
    secretsByPath.set('/wrong-secret', ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw']);

    const good = await callOnce('/good');
    const wrong = await callOnce('/wrong-secret');

    expect(good.call.verdict).toMatchObject({ ok: true, id: good.call.headers['webhook-id'] });
    expect(good.run).toMatchObject({ status: 'SUCCEEDED', httpStatus: 200 });
    expect(wrong.call.verdict).toMatchObject({ ok: false, reason: 'bad_signature' });
    expect(wrong.run.httpStatus).toBe(401);
  }, 60_000);

  it('accepts the calls of a rotation’s overlap with the old secret, the new one, or both held', async () => {
    const team = await newTenant('rotating-team');
    const old = team.secret;
    const rotated = await team.api('POST', '/v1/signing-secrets', { overlapHours: 1 });
    expect(rotated.status).toBe(201);
    const fresh = rotated.body.secret as string;
    secretsByPath.set('/old-only', [old]);
    secretsByPath.set('/new-only', [fresh]);
    secretsByPath.set('/both', ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', fresh, old]);

    const calls = [
      await callOnce('/old-only', {}, team.api),
      await callOnce('/new-only', {}, team.api),
      await callOnce('/both', {}, team.api),
    ];

    for (const { call, run } of calls) {
      expect(String(call.headers['webhook-signature']).split(' '), call.path).toHaveLength(2);
      expect(call.verdict.ok, call.path).toBe(true);
      expect(run.status, call.path).toBe('SUCCEEDED');
    }
  }, 60_000);

  it('refuses a real call whose body was changed, and one outside the timestamp tolerance', async () => {
    const { call } = await callOnce('/replayed', { amount: 100 });
    const secrets = [chronos.signingSecret];
    const signedAt = Number(call.headers['webhook-timestamp']) * 1000;

    const tampered = verifyWebhook(Buffer.from('{"amount":1000}'), call.headers, { secrets });
    const oneByte = verifyWebhook(Buffer.concat([call.body, Buffer.from(' ')]), call.headers, { secrets });
    const late = verifyWebhook(call.body, call.headers, { secrets, now: () => signedAt + 301_000 });
    const early = verifyWebhook(call.body, call.headers, { secrets, now: () => signedAt - 301_000 });
    const strict = verifyWebhook(call.body, call.headers, {
      secrets,
      toleranceSeconds: 30,
      now: () => signedAt + 31_000,
    });
    const inTime = verifyWebhook(call.body.toString('utf8'), call.headers, { secrets, now: () => signedAt + 299_000 });
    const otherId = verifyWebhook(call.body, { ...call.headers, 'webhook-id': 'another:1' }, { secrets });
    const noSignature = verifyWebhook(call.body, { ...call.headers, 'webhook-signature': undefined }, { secrets });

    expect(tampered).toMatchObject({ ok: false, reason: 'bad_signature' });
    expect(oneByte).toMatchObject({ ok: false, reason: 'bad_signature' });
    expect(late).toMatchObject({ ok: false, reason: 'too_old' });
    expect(early).toMatchObject({ ok: false, reason: 'too_new' });
    expect(strict).toMatchObject({ ok: false, reason: 'too_old' });
    expect(inTime).toMatchObject({ ok: true });
    expect(otherId).toMatchObject({ ok: false, reason: 'bad_signature' });
    expect(noSignature).toMatchObject({ ok: false, reason: 'missing_headers' });
  }, 60_000);

  it('reads fetch Headers as well as node:http headers, and refuses bad options loudly', async () => {
    const { call } = await callOnce('/fetch-headers');
    const headers = new Headers();
    for (const [name, value] of Object.entries(call.headers)) if (typeof value === 'string') headers.set(name, value);

    expect(verifyWebhook(new Uint8Array(call.body), headers, { secrets: chronos.signingSecret }).ok).toBe(true);
    expect(() => verifyWebhook(call.body, headers, { secrets: [] })).toThrow(RangeError);
    expect(() => verifyWebhook(call.body, headers, { secrets: chronos.signingSecret, toleranceSeconds: 301 })).toThrow(
      RangeError,
    );
  }, 60_000);
});
