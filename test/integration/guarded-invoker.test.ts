/**
 * The guarded invoker against local HTTP servers: redirects checked hop by hop, the redirect limit,
 * names that resolve somewhere forbidden (an injected resolver stands in for DNS), the connection
 * pinned to the checked address, and real signed calls that the README's verifier accepts.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resolver } from '#adapters/http/guarded-lookup';
import { FetchHttpInvoker } from '#adapters/http/invoker';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

interface TestServer {
  base: string;
  port: number;
  seen: Seen[];
  close(): void;
}

type Route = (seen: Seen) => { status: number; location?: string; body?: string };

async function startServer(route: Route): Promise<TestServer> {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const call = { method: req.method ?? '', url: req.url ?? '/', headers: req.headers, body };
      seen.push(call);
      const answer = route(call);
      res.statusCode = answer.status;
      if (answer.location) res.setHeader('location', answer.location);
      res.end(answer.body ?? 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

let main: TestServer;
let other: TestServer;

beforeAll(async () => {
  other = await startServer(() => ({ status: 200, body: 'other' }));
  main = await startServer(({ url }) => {
    const chain = /^\/chain\/(\d+)\/(\d+)$/.exec(url);
    if (chain) {
      const [at, length] = [Number(chain[1]), Number(chain[2])];
      return at < length ? { status: 302, location: `/chain/${at + 1}/${length}` } : { status: 200, body: 'end' };
    }
    if (url === '/to-private') return { status: 302, location: '/hop' };
    if (url === '/hop') return { status: 307, location: 'http://10.0.0.1/admin' };
    if (url === '/to-metadata') return { status: 301, location: 'http://169.254.169.254/latest/meta-data/' };
    if (url === '/to-ftp') return { status: 302, location: 'ftp://example.com/' };
    if (url === '/to-name') return { status: 302, location: 'http://internal-db.example.test/' };
    if (url === '/see-other') return { status: 303, location: '/landing' };
    if (url === '/temporary') return { status: 307, location: '/landing' };
    if (url === '/cross') return { status: 302, location: `${other.base}/elsewhere` };
    return { status: 200, body: 'landed' };
  });
});
afterAll(() => {
  main?.close();
  other?.close();
});

/** DNS for the tests: names under .example.test map to fixed addresses. */
function fakeDns(table: Record<string, string[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { asked });
}

const LOOPBACK_ALLOWED = { allowLoopback: true };
const call = (url: string, extra: { method?: string; headers?: Record<string, string>; body?: string } = {}) => ({
  url,
  method: extra.method ?? 'POST',
  headers: extra.headers ?? { 'content-type': 'application/json' },
  body: extra.body ?? '{"a":1}',
  timeoutMs: 3_000,
});
const hitsTo = (path: string) => main.seen.filter((s) => s.url === path).length;

describe('the guarded invoker', () => {
  it('calls a loopback target when loopback is allowed', async () => {
    const result = await new FetchHttpInvoker(1024, { rules: LOOPBACK_ALLOWED }).invoke(call(`${main.base}/plain`));
    expect(result).toMatchObject({ kind: 'response', status: 200, bodyExcerpt: 'landed' });
  });

  it('refuses a loopback target when loopback is not allowed, without connecting', async () => {
    const before = main.seen.length;
    const result = await new FetchHttpInvoker(1024).invoke(call(`${main.base}/plain`));
    expect(result).toMatchObject({ kind: 'error', errorType: 'blocked_target' });
    expect(result.kind === 'error' && result.message).toMatch(/loopback address \(127\.0\.0\.1\)/);
    expect(main.seen.length).toBe(before);
  });

  it('refuses localhost when loopback is not allowed', async () => {
    const result = await new FetchHttpInvoker(1024).invoke(call(`http://localhost:${main.port}/plain`));
    expect(result).toMatchObject({ kind: 'error', errorType: 'blocked_target' });
  });

  it('refuses a redirect chain at the hop that points to a private address', async () => {
    const result = await new FetchHttpInvoker(1024, { rules: LOOPBACK_ALLOWED }).invoke(
      call(`${main.base}/to-private`),
    );
    expect(result).toMatchObject({ kind: 'error', errorType: 'blocked_target' });
    expect(result.kind === 'error' && result.message).toMatch(/http:\/\/10\.0\.0\.1\/admin.*private network/);
    expect(hitsTo('/to-private')).toBe(1);
    expect(hitsTo('/hop')).toBe(1);
  });

  it('refuses redirects to the metadata service even with loopback allowed, and to other schemes', async () => {
    const invoker = new FetchHttpInvoker(1024, { rules: LOOPBACK_ALLOWED });
    expect(await invoker.invoke(call(`${main.base}/to-metadata`))).toMatchObject({
      kind: 'error',
      errorType: 'blocked_target',
      message: expect.stringMatching(/metadata/),
    });
    expect(await invoker.invoke(call(`${main.base}/to-ftp`))).toMatchObject({
      kind: 'error',
      errorType: 'blocked_target',
      message: expect.stringMatching(/http or https/),
    });
  });

  it('follows five redirects and refuses the sixth', async () => {
    const invoker = new FetchHttpInvoker(1024, { rules: LOOPBACK_ALLOWED });
    expect(await invoker.invoke(call(`${main.base}/chain/0/5`))).toMatchObject({
      kind: 'response',
      status: 200,
      bodyExcerpt: 'end',
    });
    const result = await invoker.invoke(call(`${main.base}/chain/0/6`));
    expect(result).toMatchObject({ kind: 'error', errorType: 'invalid_target' });
    expect(result.kind === 'error' && result.message).toMatch(/more than 5 redirects/);
    expect(hitsTo('/chain/6/6')).toBe(0);
  });

  it('refuses a name that resolves to a private address, even among public ones', async () => {
    const dns = fakeDns({ 'mixed.example.test': ['93.184.215.14', '10.0.0.7'] });
    const result = await new FetchHttpInvoker(1024, { rules: LOOPBACK_ALLOWED, resolve: dns }).invoke(
      call('http://mixed.example.test/hook'),
    );
    expect(result).toMatchObject({ kind: 'error', errorType: 'blocked_target' });
    expect(result.kind === 'error' && result.message).toMatch(
      /mixed\.example\.test.*private network address \(10\.0\.0\.7\)/,
    );
    expect(dns.asked).toEqual(['mixed.example.test']);
  });

  it('resolves and refuses a redirect hop whose name points to a private address', async () => {
    const dns = fakeDns({ 'internal-db.example.test': ['192.168.10.20'] });
    const result = await new FetchHttpInvoker(1024, { rules: LOOPBACK_ALLOWED, resolve: dns }).invoke(
      call(`${main.base}/to-name`),
    );
    expect(result).toMatchObject({ kind: 'error', errorType: 'blocked_target' });
    expect(dns.asked).toEqual(['internal-db.example.test']);
  });

  it('connects to the address it checked and keeps the name in the Host header', async () => {
    const dns = fakeDns({ 'team.example.test': ['127.0.0.1'] });
    const before = main.seen.length;
    const result = await new FetchHttpInvoker(1024, { rules: LOOPBACK_ALLOWED, resolve: dns }).invoke(
      call(`http://team.example.test:${main.port}/pinned`),
    );
    expect(result).toMatchObject({ kind: 'response', status: 200 });
    expect(main.seen.slice(before)).toMatchObject([
      { url: '/pinned', headers: { host: `team.example.test:${main.port}` } },
    ]);
    expect(dns.asked).toEqual(['team.example.test']);
  });

  it('refuses the same name when loopback is not allowed, at the DNS step', async () => {
    const dns = fakeDns({ 'team.example.test': ['127.0.0.1'] });
    const result = await new FetchHttpInvoker(1024, { resolve: dns }).invoke(
      call(`http://team.example.test:${main.port}/pinned`),
    );
    expect(result).toMatchObject({ kind: 'error', errorType: 'blocked_target' });
    expect(dns.asked).toEqual(['team.example.test']);
  });

  it('turns a POST into a GET without body on 303 and keeps it on 307', async () => {
    const invoker = new FetchHttpInvoker(1024, { rules: LOOPBACK_ALLOWED });
    const before = main.seen.length;
    await invoker.invoke(call(`${main.base}/see-other`));
    await invoker.invoke(call(`${main.base}/temporary`));
    const landings = main.seen.slice(before).filter((s) => s.url === '/landing');
    expect(landings).toMatchObject([
      { method: 'GET', body: '' },
      { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } },
    ]);
    expect(landings[0]?.headers['content-type']).toBeUndefined();
  });

  it('drops credentials on a redirect to another origin and keeps other headers', async () => {
    const headers = { authorization: 'Bearer team-secret', cookie: 'a=1', 'x-team': 'blue' };
    await new FetchHttpInvoker(1024, { rules: LOOPBACK_ALLOWED }).invoke(call(`${main.base}/cross`, { headers }));
    expect(main.seen.at(-1)).toMatchObject({ url: '/cross', headers: { authorization: 'Bearer team-secret' } });
    const arrived = other.seen.at(-1);
    expect(arrived).toMatchObject({ url: '/elsewhere', headers: { 'x-team': 'blue' } });
    expect(arrived?.headers.authorization).toBeUndefined();
    expect(arrived?.headers.cookie).toBeUndefined();
  });
});
