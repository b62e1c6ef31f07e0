import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTargetInvoker } from '#adapters/http/invoker';

let server: Server;
let base: string;
const seen: Array<{
  method?: string;
  url?: string;
  headers: Record<string, unknown>;
  rawHeaders: string[];
  body: string;
  port?: number;
}> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      seen.push({
        method: req.method,
        url: req.url,
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body,
        port: req.socket.remotePort,
      });
      if (req.url === '/ok') res.end('x'.repeat(10_000));
      else if (req.url === '/fail') {
        res.statusCode = 503;
        res.end('down for maintenance');
      } else if (req.url === '/hang') setTimeout(() => res.end('late'), 5_000).unref();
      else if (req.url === '/reset') req.socket.destroy();
      else if (req.url === '/unicode') res.end('é'.repeat(10));
      else if (req.url?.startsWith('/compressed/')) {
        const encoding = req.url.slice('/compressed/'.length);
        const text = Buffer.from(`${'compressed answer '.repeat(20)}end`);
        const encoders: Record<string, (b: Buffer) => Buffer> = {
          gzip: gzipSync,
          deflate: deflateSync,
          br: brotliCompressSync,
          'not-really-gzip': (b) => b,
        };
        res.setHeader('content-encoding', encoding === 'not-really-gzip' ? 'gzip' : encoding);
        res.end((encoders[encoding] ?? ((b: Buffer) => b))(text));
      } else if (req.url === '/compressed-then-stalls') {
        res.setHeader('content-encoding', 'gzip');
        res.write(gzipSync(Buffer.from('x'.repeat(100))).subarray(0, 20));
      } else if (req.url === '/slow') setTimeout(() => res.end('slow'), 300);
      else if (req.url === '/in-two-parts') {
        res.write('first part, ');
        setTimeout(() => res.end('second part'), 20);
      } else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

/** The test server listens on 127.0.0.1: loopback must be allowed explicitly. */
const LOCAL = { rules: { allowLoopback: true } };

const request = (path: string, timeoutMs = 2_000) => ({
  url: `${base}${path}`,
  method: 'POST',
  headers: { 'x-test': '1' },
  body: '{"a":1}',
  timeoutMs,
});

describe('HttpTargetInvoker', () => {
  it('sends method, headers and body, and keeps only the first bytes of the answer', async () => {
    const result = await new HttpTargetInvoker(1024, LOCAL).invoke(request('/ok'));

    expect(result).toMatchObject({ kind: 'response', status: 200 });
    expect(result.kind === 'response' && result.bodyExcerpt).toBe('x'.repeat(1024));
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/ok', body: '{"a":1}', headers: { 'x-test': '1' } });
  });

  it('reports the status of an error answer with its excerpt', async () => {
    const result = await new HttpTargetInvoker(4096, LOCAL).invoke(request('/fail'));
    expect(result).toMatchObject({ kind: 'response', status: 503, bodyExcerpt: 'down for maintenance' });
  });

  it('gives up at the timeout and says so', async () => {
    const started = Date.now();
    const result = await new HttpTargetInvoker(4096, LOCAL).invoke(request('/hang', 300));
    expect(result).toMatchObject({ kind: 'error', errorType: 'timeout' });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('classifies a reset connection and a refused one as connection errors', async () => {
    expect(await new HttpTargetInvoker(4096, LOCAL).invoke(request('/reset'))).toMatchObject({
      kind: 'error',
      errorType: 'connection',
    });
    const refused = await new HttpTargetInvoker(4096, LOCAL).invoke({ ...request('/'), url: 'http://127.0.0.1:1/' });
    expect(refused).toMatchObject({ kind: 'error', errorType: 'connection' });
    expect(refused.kind === 'error' && refused.message).toMatch(/^ECONNREFUSED: /);
  });

  it('names itself and accepts any answer unless the job sets those headers', async () => {
    const invoker = new HttpTargetInvoker(4096, LOCAL);

    await invoker.invoke(request('/'));
    expect(seen.at(-1)?.headers).toMatchObject({ 'user-agent': 'Chronos', accept: '*/*', 'x-test': '1' });

    await invoker.invoke({ ...request('/'), headers: { 'User-Agent': 'team-agent/1.0', Accept: 'application/json' } });
    const names = (seen.at(-1)?.rawHeaders ?? []).filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
    expect(seen.at(-1)?.headers).toMatchObject({ 'user-agent': 'team-agent/1.0', accept: 'application/json' });
    expect(names.filter((name) => name === 'user-agent' || name === 'accept')).toHaveLength(2);
  });

  it('sends a body without Content-Type as text, as fetch did, and keeps a Content-Type the job set', async () => {
    const invoker = new HttpTargetInvoker(4096, LOCAL);

    await invoker.invoke(request('/'));
    expect(seen.at(-1)?.headers['content-type']).toBe('text/plain;charset=UTF-8');
    await invoker.invoke({ ...request('/'), headers: { 'Content-Type': 'application/json' } });
    expect(seen.at(-1)?.headers['content-type']).toBe('application/json');
    await invoker.invoke({ ...request('/'), method: 'GET', body: undefined });
    expect(seen.at(-1)?.headers['content-type']).toBeUndefined();
  });

  it('keeps the decoded text of a gzip, deflate or br answer as its excerpt', async () => {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const result = await new HttpTargetInvoker(64, LOCAL).invoke(request(`/compressed/${encoding}`));
      expect(result, encoding).toMatchObject({ kind: 'response', status: 200 });
      expect(result.kind === 'response' && result.bodyExcerpt, encoding).toBe(
        'compressed answer '.repeat(4).slice(0, 64),
      );
      expect(result.kind === 'response' && result.notes, encoding).toBeUndefined();
    }
  });

  it('keeps no excerpt of a body marked gzip that is not, and says so, without failing the call', async () => {
    const result = await new HttpTargetInvoker(64, LOCAL).invoke(request('/compressed/not-really-gzip'));

    expect(result).toMatchObject({ kind: 'response', status: 200, bodyExcerpt: '' });
    expect(result.kind === 'response' && result.notes?.[0]).toMatch(
      /^the answer's body is marked gzip but could not be decoded/,
    );
  });

  it('ends a compressed answer that stalls at the timeout, as a timeout', async () => {
    const result = await new HttpTargetInvoker(4096, LOCAL).invoke(request('/compressed-then-stalls', 300));

    expect(result).toMatchObject({ kind: 'error', errorType: 'timeout' });
  });

  it('calls again on its connections once answers were read to their end', async () => {
    const invoker = new HttpTargetInvoker(4096, LOCAL);

    for (let i = 0; i < 8; i++) await invoker.invoke(request(i % 2 === 0 ? '/in-two-parts' : '/fail'));

    // A connection closed after each answer would be eight; the pool hands a finished one out again.
    const ports = new Set(seen.slice(-8).map((call) => call.port));
    expect(ports.size).toBeLessThanOrEqual(2);
  });

  it('cuts an excerpt inside a multi-byte character without throwing', async () => {
    const result = await new HttpTargetInvoker(5, LOCAL).invoke(request('/unicode'));
    expect(result.kind === 'response' && result.bodyExcerpt.startsWith('éé')).toBe(true);
  });

  it('tells when the calls going out are sent: written to the wire, not answered', async () => {
    const invoker = new HttpTargetInvoker(4096, LOCAL);
    const asked = performance.now();
    // Planned for now and made 100 ms later, to a target that answers 300 ms after that.
    const planned = request('/slow');
    invoker.plan(planned, Date.now());
    const slow = new Promise((resolve) => setTimeout(resolve, 100)).then(() => invoker.invoke(planned));
    await invoker.untilCallsSent(1_000);
    const waited = performance.now() - asked;
    expect(waited).toBeGreaterThanOrEqual(95);
    expect(waited).toBeLessThan(300);
    expect(await slow).toMatchObject({ kind: 'response', status: 200, bodyExcerpt: 'slow' });
    // Nothing is going out any more: the next one need not wait.
    const started = performance.now();
    await invoker.untilCallsSent(1_000);
    expect(performance.now() - started).toBeLessThan(50);
  });
});
