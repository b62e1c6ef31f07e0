/**
 * The guarded invoker against local HTTP servers: redirects checked hop by hop, the redirect limit,
 * names that resolve somewhere forbidden (an injected resolver stands in for DNS), the connection
 * pinned to the checked address, redirects that carry nothing to another origin and never go from
 * https to http (an https server with a freshly trusted certificate). Signed calls are verified
 * with the standardwebhooks package in signed-calls.test.ts.
 */
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import { createServer as createSecureServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resolver } from '#adapters/http/guarded-lookup';
import { HttpTargetInvoker } from '#adapters/http/invoker';
import { type Certificate, trustedLocalCertificate } from '../support/trusted-certificate.ts';

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

/** An http server, or an https one when given a certificate. */
async function startServer(route: Route, certificate?: Certificate): Promise<TestServer> {
  const seen: Seen[] = [];
  const listener: RequestListener = (req, res) => {
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
  };
  const server: Server = certificate ? createSecureServer(certificate, listener) : createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `${certificate ? 'https' : 'http'}://127.0.0.1:${port}`,
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
let secure: TestServer;

beforeAll(async () => {
  other = await startServer(({ url }) =>
    url === '/back-to-main' ? { status: 302, location: `${main.base}/returned` } : { status: 200, body: 'other' },
  );
  secure = await startServer(({ url }) => {
    if (url === '/to-http') return { status: 302, location: `${main.base}/downgraded` };
    if (url === '/to-http-same-host') return { status: 308, location: `http://127.0.0.1:${secure.port}/x` };
    // Another origin by its host only: localhost is in the certificate too.
    if (url === '/to-other-secure') return { status: 302, location: `https://localhost:${secure.port}/secure-landing` };
    if (url === '/same-secure') return { status: 307, location: '/secure-landing' };
    return { status: 200, body: 'secure' };
  }, trustedLocalCertificate());
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
    if (url === '/cross-307') return { status: 307, location: `${other.base}/elsewhere` };
    if (url === '/cross-308') return { status: 308, location: `${other.base}/elsewhere` };
    if (url === '/cross-303') return { status: 303, location: `${other.base}/elsewhere` };
    if (url === '/same-302') return { status: 302, location: '/landing' };
    if (url === '/same-308') return { status: 308, location: '/landing' };
    if (url === '/bounce') return { status: 302, location: `${other.base}/back-to-main` };
    return { status: 200, body: 'landed' };
  });
});
afterAll(() => {
  main?.close();
  other?.close();
  secure?.close();
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
    const result = await new HttpTargetInvoker(1024, { rules: LOOPBACK_ALLOWED }).invoke(call(`${main.base}/plain`));
    expect(result).toMatchObject({ kind: 'response', status: 200, bodyExcerpt: 'landed' });
  });

  it('refuses a loopback target when loopback is not allowed, without connecting', async () => {
    const before = main.seen.length;
    const result = await new HttpTargetInvoker(1024).invoke(call(`${main.base}/plain`));
    expect(result).toMatchObject({ kind: 'error', errorType: 'blocked_target' });
    expect(result.kind === 'error' && result.message).toMatch(/loopback address \(127\.0\.0\.1\)/);
    expect(main.seen.length).toBe(before);
  });

  it('refuses localhost when loopback is not allowed', async () => {
    const result = await new HttpTargetInvoker(1024).invoke(call(`http://localhost:${main.port}/plain`));
    expect(result).toMatchObject({ kind: 'error', errorType: 'blocked_target' });
  });

  it('refuses a redirect chain at the hop that points to a private address', async () => {
    const result = await new HttpTargetInvoker(1024, { rules: LOOPBACK_ALLOWED }).invoke(
      call(`${main.base}/to-private`),
    );
    expect(result).toMatchObject({ kind: 'error', errorType: 'blocked_target' });
    expect(result.kind === 'error' && result.message).toMatch(/http:\/\/10\.0\.0\.1\/admin.*private network/);
    expect(hitsTo('/to-private')).toBe(1);
    expect(hitsTo('/hop')).toBe(1);
  });

  it('refuses redirects to the metadata service even with loopback allowed, and to other schemes', async () => {
    const invoker = new HttpTargetInvoker(1024, { rules: LOOPBACK_ALLOWED });
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
    const invoker = new HttpTargetInvoker(1024, { rules: LOOPBACK_ALLOWED });
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
    const result = await new HttpTargetInvoker(1024, { rules: LOOPBACK_ALLOWED, resolve: dns }).invoke(
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
    const result = await new HttpTargetInvoker(1024, { rules: LOOPBACK_ALLOWED, resolve: dns }).invoke(
      call(`${main.base}/to-name`),
    );
    expect(result).toMatchObject({ kind: 'error', errorType: 'blocked_target' });
    expect(dns.asked).toEqual(['internal-db.example.test']);
  });

  it('connects to the address it checked and keeps the name in the Host header', async () => {
    const dns = fakeDns({ 'team.example.test': ['127.0.0.1'] });
    const before = main.seen.length;
    const result = await new HttpTargetInvoker(1024, { rules: LOOPBACK_ALLOWED, resolve: dns }).invoke(
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
    const result = await new HttpTargetInvoker(1024, { resolve: dns }).invoke(
      call(`http://team.example.test:${main.port}/pinned`),
    );
    expect(result).toMatchObject({ kind: 'error', errorType: 'blocked_target' });
    expect(dns.asked).toEqual(['team.example.test']);
  });

  it('turns a POST into a GET without body on 303 and keeps it on 307', async () => {
    const invoker = new HttpTargetInvoker(1024, { rules: LOOPBACK_ALLOWED });
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
});

/** Every kind of header the executor sends: the job's plain and secret ones, and Chronos' own. */
const JOB_AND_CHRONOS_HEADERS = {
  'content-type': 'application/json',
  'user-agent': 'team-agent/1.0',
  'x-team': 'blue',
  'x-api-key': 'team-api-key-5e1f',
  authorization: 'Bearer team-secret',
  cookie: 'session=team',
  'idempotency-key': 'tenant-a:J-1:1700000000000',
  'chronos-run-id': 'R-1',
  'chronos-timestamp': '1700000000',
  'chronos-signature': 'v1=00ff',
  'webhook-id': 'tenant-a:J-1:1700000000000',
  'webhook-timestamp': '1700000000',
  'webhook-signature': 'v1,c2lnbmF0dXJl',
};

/** The header values of a call that came from the request (Chronos adds its own user-agent and accept). */
function carriedOver(arrived: Seen | undefined): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(JOB_AND_CHRONOS_HEADERS).flatMap(([name, value]) =>
      arrived?.headers[name] === value ? [[name, value]] : [],
    ),
  );
}

describe('redirects carry nothing to another origin', () => {
  const invoker = () => new HttpTargetInvoker(1024, { rules: LOOPBACK_ALLOWED });
  /** A call with every header, and a body unless the method is GET (as the executor makes it). */
  const full = (url: string, method = 'POST', withBody = method !== 'GET') => {
    const { body, ...bodiless } = call(url, { method, headers: { ...JOB_AND_CHRONOS_HEADERS } });
    return withBody ? { ...bodiless, body } : bodiless;
  };

  it('follows a redirect to another port as a GET with none of the headers and no body', async () => {
    const before = other.seen.length;
    const result = await invoker().invoke(full(`${main.base}/cross`));
    expect(result).toMatchObject({ kind: 'response', status: 200, bodyExcerpt: 'other' });
    expect(result.kind === 'response' && result.notes).toEqual([
      `redirected to another origin (${other.base}): followed without the job's headers, signature or body`,
    ]);
    expect(carriedOver(main.seen.at(-1))).toEqual(JOB_AND_CHRONOS_HEADERS);
    const arrived = other.seen.slice(before);
    expect(arrived).toMatchObject([{ url: '/elsewhere', method: 'GET', body: '' }]);
    expect(carriedOver(arrived[0])).toEqual({});
  });

  it('turns a 303 to another origin into a bare GET, whatever the method', async () => {
    const before = other.seen.length;
    await invoker().invoke(full(`${main.base}/cross-303`, 'PUT'));
    const arrived = other.seen.slice(before);
    expect(arrived).toMatchObject([{ url: '/elsewhere', method: 'GET', body: '' }]);
    expect(carriedOver(arrived[0])).toEqual({});
  });

  it('refuses a 307 or 308 to another origin that would carry the body, without calling it', async () => {
    const before = other.seen.length;
    for (const path of ['/cross-307', '/cross-308']) {
      const result = await invoker().invoke(full(`${main.base}${path}`));
      expect(result).toMatchObject({ kind: 'error', errorType: 'blocked_target' });
      expect(result.kind === 'error' && result.message).toMatch(/another origin.*would carry the body there/);
    }
    expect(other.seen.length).toBe(before);
  });

  it('follows a 307 of a call without body to another origin, keeping the method and nothing else', async () => {
    const before = other.seen.length;
    expect(await invoker().invoke(full(`${main.base}/cross-307`, 'DELETE', false))).toMatchObject({
      kind: 'response',
      status: 200,
    });
    const arrived = other.seen.slice(before);
    expect(arrived).toMatchObject([{ url: '/elsewhere', method: 'DELETE', body: '' }]);
    expect(carriedOver(arrived[0])).toEqual({});
  });

  it('sends nothing back to the first origin once another origin redirected there', async () => {
    const before = main.seen.length;
    expect(await invoker().invoke(full(`${main.base}/bounce`))).toMatchObject({ kind: 'response', status: 200 });
    const [first, returned] = main.seen.slice(before);
    expect(carriedOver(first)).toEqual(JOB_AND_CHRONOS_HEADERS);
    expect(returned).toMatchObject({ url: '/returned', method: 'GET', body: '' });
    expect(carriedOver(returned)).toEqual({});
  });

  it('keeps every header on a same-origin redirect, and the body and method on 307 and 308', async () => {
    const before = main.seen.length;
    await invoker().invoke(full(`${main.base}/temporary`));
    await invoker().invoke(full(`${main.base}/same-308`, 'PUT'));
    await invoker().invoke(full(`${main.base}/same-302`, 'GET'));
    const landings = main.seen.slice(before).filter((s) => s.url === '/landing');
    expect(landings).toMatchObject([
      { method: 'POST', body: '{"a":1}' },
      { method: 'PUT', body: '{"a":1}' },
      { method: 'GET', body: '' },
    ]);
    for (const landing of landings) expect(carriedOver(landing)).toEqual(JOB_AND_CHRONOS_HEADERS);
    const result = await invoker().invoke(full(`${main.base}/temporary`));
    expect(result.kind === 'response' && result.notes).toBeUndefined();
  });

  it('refuses a redirect from https to http as blocked_target, without calling the http URL', async () => {
    const before = main.seen.length;
    const result = await invoker().invoke(full(`${secure.base}/to-http`));
    expect(result).toMatchObject({ kind: 'error', errorType: 'blocked_target' });
    expect(result.kind === 'error' && result.message).toMatch(
      new RegExp(`refused to call ${main.base}/downgraded: is a redirect from https .* to http`),
    );
    expect(main.seen.length).toBe(before);
    expect(secure.seen.at(-1)).toMatchObject({ url: '/to-http', method: 'POST', body: '{"a":1}' });
  });

  it('refuses https to http on the same host and port too', async () => {
    const before = secure.seen.length;
    const result = await invoker().invoke(full(`${secure.base}/to-http-same-host`, 'GET'));
    expect(result).toMatchObject({ kind: 'error', errorType: 'blocked_target' });
    expect(result.kind === 'error' && result.message).toMatch(/from https .* to http/);
    expect(secure.seen.length).toBe(before + 1);
  });

  it('follows https to another https origin bare, and within one https origin with everything', async () => {
    const before = secure.seen.length;
    expect(await invoker().invoke(full(`${secure.base}/to-other-secure`))).toMatchObject({
      kind: 'response',
      bodyExcerpt: 'secure',
    });
    expect(await invoker().invoke(full(`${secure.base}/same-secure`))).toMatchObject({
      kind: 'response',
      bodyExcerpt: 'secure',
    });
    const [, elsewhere, , same] = secure.seen.slice(before);
    expect(elsewhere).toMatchObject({ url: '/secure-landing', method: 'GET', body: '' });
    expect(elsewhere?.headers.host).toBe(`localhost:${secure.port}`);
    expect(carriedOver(elsewhere)).toEqual({});
    expect(same).toMatchObject({ url: '/secure-landing', method: 'POST', body: '{"a":1}' });
    expect(carriedOver(same)).toEqual(JOB_AND_CHRONOS_HEADERS);
  });
});
