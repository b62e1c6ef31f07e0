/**
 * What a target sends back is bounded, never thrown: a raw TCP server answers with statuses no
 * client expects, absurd Retry-After values, huge headers, binary and endless bodies. Each answer
 * goes through the real invoker and outcomeOf; the outcome must be one DynamoDB can store (every
 * number a safe integer, `error` short) and say what was clamped or ignored.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTargetInvoker } from '#adapters/http/invoker';
import { MAX_RETRY_AFTER_SECONDS } from '#core/retry-policy';
import { MAX_ERROR_CHARS, outcomeOf } from '#core/use-cases/target-outcome';

const EXCERPT_BYTES = 1_024;

/** Raw answers by path: whatever a broken or hostile server may write. */
const ANSWERS: Record<string, (socket: Socket) => void> = {
  '/status-999': (s) => s.end('HTTP/1.1 999 Whatever\r\ncontent-length: 2\r\nconnection: close\r\n\r\nhi'),
  '/status-600': (s) => s.end('HTTP/1.1 600 Beyond\r\ncontent-length: 0\r\nconnection: close\r\n\r\n'),
  '/status-garbage': (s) => s.end('HTTP/1.1 2x0 Nope\r\ncontent-length: 0\r\n\r\n'),
  '/retry-after-huge': (s) => s.end(answer(503, { 'retry-after': '9'.repeat(400) })),
  '/retry-after-negative': (s) => s.end(answer(429, { 'retry-after': '-5' })),
  '/retry-after-far-date': (s) => s.end(answer(503, { 'retry-after': 'Fri, 31 Dec 9999 23:59:59 GMT' })),
  '/retry-after-garbage': (s) => s.end(answer(503, { 'retry-after': '1e300' })),
  '/huge-header': (s) => s.end(answer(200, { 'x-big': 'h'.repeat(200_000) })),
  '/binary': (s) => s.end(Buffer.concat([Buffer.from(answer(200, {}, 8_192)), Buffer.alloc(8_192, 0xff)])),
  '/endless': (s) => {
    s.write('HTTP/1.1 500 Oops\r\ntransfer-encoding: chunked\r\n\r\n');
    const chunk = `1000\r\n${'z'.repeat(0x1000)}\r\n`;
    const timer = setInterval(() => (s.destroyed ? clearInterval(timer) : s.write(chunk)), 1);
  },
};

function answer(status: number, headers: Record<string, string>, length = 0): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${status} X\r\ncontent-length: ${length}\r\nconnection: close\r\n${lines.join('')}\r\n`;
}

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((socket) => {
    socket.on('error', () => undefined);
    let head = '';
    socket.on('data', (data) => {
      head += data.toString('latin1');
      const path = /^[A-Z]+ (\S+) /.exec(head)?.[1];
      if (path === undefined || !head.includes('\r\n\r\n')) return;
      ANSWERS[path]?.(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  base = `http://127.0.0.1:${address.port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const invoker = () => new HttpTargetInvoker(EXCERPT_BYTES, { rules: { allowLoopback: true } });
const call = (path: string) =>
  invoker().invoke({ url: `${base}${path}`, method: 'GET', headers: {}, timeoutMs: 3_000 });

/** What DynamoDB and every later stage can hold: safe integers, bounded strings. */
function expectStorable(outcome: ReturnType<typeof outcomeOf>) {
  for (const [field, value] of Object.entries(outcome)) {
    if (typeof value === 'number') expect(Number.isSafeInteger(value), `${field} = ${value}`).toBe(true);
  }
  expect((outcome.error ?? '').length).toBeLessThanOrEqual(MAX_ERROR_CHARS);
  expect(Buffer.byteLength(outcome.responseExcerpt ?? '', 'utf8')).toBeLessThanOrEqual(EXCERPT_BYTES);
}

describe('a hostile target answer', () => {
  it.each(Object.keys(ANSWERS))('%s is recorded as a bounded outcome, never thrown', async (path) => {
    const result = await call(path);
    const outcome = outcomeOf(result, Date.now());

    expectStorable(outcome);
    expect(['SUCCEEDED', 'FAILED', 'TIMED_OUT']).toContain(outcome.status);
  });

  it('clamps a Retry-After beyond any policy to a day and says so', async () => {
    const outcome = outcomeOf(await call('/retry-after-huge'), Date.now());

    expect(outcome).toMatchObject({ status: 'FAILED', httpStatus: 503, retryAfterSeconds: MAX_RETRY_AFTER_SECONDS });
    expect(outcome.error).toContain(`clamped to ${MAX_RETRY_AFTER_SECONDS} s`);
    const farDate = outcomeOf(await call('/retry-after-far-date'), Date.now());
    expect(farDate.retryAfterSeconds).toBe(MAX_RETRY_AFTER_SECONDS);
  });

  it('ignores a negative or garbage Retry-After and says so', async () => {
    for (const path of ['/retry-after-negative', '/retry-after-garbage']) {
      const outcome = outcomeOf(await call(path), Date.now());
      expect(outcome.retryAfterSeconds).toBeUndefined();
      expect(outcome.error).toContain('ignored');
    }
  });

  it('keeps a binary body as text within the excerpt bound', async () => {
    const outcome = outcomeOf(await call('/binary'), Date.now());

    expect(outcome.status).toBe('SUCCEEDED');
    expect(outcome.responseExcerpt).toMatch(/^\ufffd+$/);
  });

  it('records a status outside the usual range as the target sent it, as a failure', async () => {
    const outcome = outcomeOf(await call('/status-999'), Date.now());

    expect(outcome).toMatchObject({ status: 'FAILED', httpStatus: 999, errorType: 'http_5xx' });
  });
});
