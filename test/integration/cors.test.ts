/**
 * CORS in the local runtime, as the deployed stage does it: the gateway answers the preflight and
 * its own errors, and every function answer (success, mapped error, the health check) names the
 * caller's origin when it is one of the allowed ones: each of them, not only the first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';

const ORIGINS = ['https://app.example.com', 'https://admin.example.com'];
let chronos: LocalChronos;

beforeAll(async () => {
  chronos = await startLocalChronos({
    port: 0,
    scannerIntervalMs: 3_600_000,
    namePrefix: 'cors-',
    corsAllowOrigins: ORIGINS,
    log: () => undefined,
  });
}, 60_000);
afterAll(async () => {
  await chronos?.stop();
});

function call(method: string, path: string, origin: string, options: { token?: boolean; body?: unknown } = {}) {
  return fetch(`${chronos.apiUrl}${path}`, {
    method,
    headers: {
      origin,
      'content-type': 'application/json',
      ...(options.token === false ? {} : { authorization: `Bearer ${chronos.token}` }),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
}

describe('CORS with two allowed origins', () => {
  it.each(ORIGINS)('answers the preflight from %s with that origin and the headers the API reads', async (origin) => {
    const response = await fetch(`${chronos.apiUrl}/v1/jobs`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'idempotency-key' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(origin);
    const allowed = response.headers.get('access-control-allow-headers')?.split(',') ?? [];
    expect(allowed).toEqual(expect.arrayContaining(['Authorization', 'Content-Type', 'Idempotency-Key', 'If-Match']));
    expect(response.headers.get('access-control-allow-methods')).toContain('PATCH');
    expect(response.headers.get('vary')).toBe('Origin');
  });

  it.each(ORIGINS)("gives a function's answer to %s that origin, exposing ETag and Retry-After", async (origin) => {
    const response = await call('GET', '/v1/jobs', origin);
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(origin);
    expect(response.headers.get('access-control-expose-headers')).toBe('ETag,Retry-After');
    expect(response.headers.get('vary')).toBe('Origin');
  });

  it('names no origin for one not allowed, on any answer', async () => {
    const response = await call('GET', '/v1/jobs', 'https://evil.example.com');
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(response.headers.get('vary')).toBe('Origin');
  });

  it('gives mapped errors and the health check the origin too', async () => {
    const invalid = await call('POST', '/v1/jobs', ORIGINS[1] as string, { body: { name: 42 } });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('access-control-allow-origin')).toBe(ORIGINS[1]);
    const missing = await call('GET', '/v1/jobs/01J00000000000000000000000', ORIGINS[1] as string);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('access-control-allow-origin')).toBe(ORIGINS[1]);
    const health = await call('GET', '/v1/health', ORIGINS[1] as string, { token: false });
    expect(health.headers.get('access-control-allow-origin')).toBe(ORIGINS[1]);
  });

  it("gives the gateway's own answers (401 without a token) the request's origin", async () => {
    const response = await call('GET', '/v1/jobs', ORIGINS[1] as string, { token: false });
    expect(response.status).toBe(401);
    expect(response.headers.get('access-control-allow-origin')).toBe(ORIGINS[1]);
    expect(response.headers.get('vary')).toBe('Origin');
  });
});
