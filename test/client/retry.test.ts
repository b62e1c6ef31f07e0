/**
 * The client's retries, against a local stub server that refuses as the API does: a 429 with
 * Retry-After is retried after that wait, a bounded number of times; a wait longer than allowed,
 * a 429 without Retry-After (a quota) and a 503 to a POST that is not safe to repeat are answered
 * to the caller at once.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createChronosClient, retryDelayMs } from '../../client/src/index.ts';

interface Seen {
  method: string;
  url: string;
  body: string;
  at: number;
  authorization: string | undefined;
}

/** Answers the queued answers in order (the last one forever) and records each request. */
let answers: Array<{ status: number; headers?: Record<string, string>; body: unknown }> = [];
let seen: Seen[] = [];
let server: Server;
let baseUrl: string;

const rateLimited = (retryAfter?: string) => ({
  status: 429,
  headers: (retryAfter === undefined ? {} : { 'retry-after': retryAfter }) as Record<string, string>,
  body: { error: { code: 'RATE_LIMITED', message: 'Too many', details: [{ field: 'body', reason: 'later' }] } },
});
const JOB_PAGE = { items: [], cursor: null };

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        body,
        at: Date.now(),
        authorization: req.headers.authorization,
      });
      const answer = answers.length > 1 ? (answers.shift() as (typeof answers)[number]) : answers[0];
      res.writeHead(answer?.status ?? 500, { 'content-type': 'application/json', ...answer?.headers });
      res.end(JSON.stringify(answer?.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  answers = [];
  seen = [];
});

const client = (retry = {}) => createChronosClient({ baseUrl, token: 't0k3n', retry: { baseDelayMs: 10, ...retry } });

describe('retries of refused calls', () => {
  it('waits what Retry-After says after a 429, then succeeds, sending the same request again', async () => {
    answers = [rateLimited('1'), { status: 201, body: { jobId: 'x' } }];
    const body = {
      target: { url: 'https://example.org/hook' },
      schedule: { type: 'once' as const, at: '2030-01-01T00:00:00Z' },
    };
    const result = await client().jobs.create(body);
    expect(result.error).toBeUndefined();
    expect(result.data).toEqual({ jobId: 'x' });
    expect(seen).toHaveLength(2);
    expect(seen[1]?.body).toBe(seen[0]?.body);
    expect(JSON.parse(seen[1]?.body ?? '')).toEqual(body);
    expect(seen[1]?.authorization).toBe('Bearer t0k3n');
    // Retry-After: 1 is a second; allow for timer slack below it, never an early retry.
    expect((seen[1]?.at ?? 0) - (seen[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it('gives up after maxRetries, answering the last refusal as a typed error', async () => {
    answers = [rateLimited('0')];
    const result = await client({ maxRetries: 2 }).jobs.listPage();
    expect(seen).toHaveLength(3);
    expect(result.error).toEqual({
      status: 429,
      code: 'RATE_LIMITED',
      message: 'Too many',
      details: [{ field: 'body', reason: 'later' }],
      field: 'body',
      retryAfterSeconds: 0,
    });
  });

  it('does not wait longer than maxDelayMs: a longer Retry-After is answered at once', async () => {
    answers = [rateLimited('120'), { status: 200, body: JOB_PAGE }];
    const started = Date.now();
    const result = await client({ maxDelayMs: 5_000 }).jobs.listPage();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(seen).toHaveLength(1);
    expect(result.error?.retryAfterSeconds).toBe(120);
  });

  it('does not retry a 429 without Retry-After (a quota: waiting does not help)', async () => {
    answers = [rateLimited(undefined), { status: 200, body: JOB_PAGE }];
    const result = await client().jobs.listPage();
    expect(seen).toHaveLength(1);
    expect(result.error?.status).toBe(429);
  });

  it('retries a 503 to a GET, and to a POST only when it carries an Idempotency-Key', async () => {
    const unavailable = { status: 503, body: { error: { code: 'UNAVAILABLE', message: 'busy', details: [] } } };
    answers = [unavailable, { status: 200, body: JOB_PAGE }];
    expect((await client().jobs.listPage()).data).toEqual(JOB_PAGE);
    expect(seen).toHaveLength(2);

    seen = [];
    answers = [unavailable, { status: 202, body: { runId: 'r' } }];
    const bare = await client().jobs.trigger('01JD2Q8Z4W6X7Y8Z9A0B1C2D3E');
    expect(bare.error?.status).toBe(503);
    expect(seen).toHaveLength(1);

    seen = [];
    answers = [unavailable, { status: 202, body: { runId: 'r' } }];
    const keyed = await client().jobs.trigger('01JD2Q8Z4W6X7Y8Z9A0B1C2D3E', { idempotencyKey: 'k-1' });
    expect(keyed.data).toEqual({ runId: 'r' });
    expect(seen).toHaveLength(2);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const answer = (value: string) => new Response(null, { status: 429, headers: { 'retry-after': value } });
    expect(retryDelayMs(answer('2'), 0)).toBe(2_000);
    const inFiveSeconds = new Date(Date.now() + 5_000).toUTCString();
    expect(retryDelayMs(answer(inFiveSeconds), 0)).toBeGreaterThan(3_000);
    expect(retryDelayMs(answer('soon'), 0)).toBeUndefined();
  });

  it('answers a call that got no answer as a NETWORK error value, not a throw', async () => {
    const offline = createChronosClient({ baseUrl: 'http://127.0.0.1:1', retry: { maxRetries: 0 } });
    const result = await offline.jobs.get('01JD2Q8Z4W6X7Y8Z9A0B1C2D3E');
    expect(result.error).toMatchObject({ status: 0, code: 'NETWORK' });
  });
});
