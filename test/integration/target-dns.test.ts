/**
 * Target names resolve through c-ares with its own timeout, against a local name server that
 * answers some names and drops every query for the others: a call to a name whose server never
 * answers ends within the job's timeout, and meanwhile other names, the thread-pool lookups the
 * AWS SDK makes (dns.lookup) and other calls go through at once.
 */
import { lookup } from 'node:dns/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetResolver } from '#adapters/http/guarded-lookup';
import { HttpTargetInvoker } from '#adapters/http/invoker';
import { outboundRulesFromEnv } from '#adapters/outbound-rules';
import type { HttpResult } from '#core/ports';
import { type FakeDnsServer, startFakeDnsServer } from '../support/dns-server.ts';

const LOOPBACK_ALLOWED = outboundRulesFromEnv({ ALLOW_LOOPBACK_TARGETS: 'true' });
/** More hanging lookups than libuv's thread pool has threads (4): getaddrinfo would queue behind them. */
const HANGING_CALLS = 16;

let dns: FakeDnsServer;
let server: Server;
let port: number;

beforeAll(async () => {
  dns = await startFakeDnsServer({ 'ok.chronos.test': '127.0.0.1' });
  server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await dns?.close();
  await new Promise((resolve) => server?.close(resolve));
});

function invoker(options: { timeoutMs?: number; tries?: number } = {}) {
  return new HttpTargetInvoker(1024, {
    rules: LOOPBACK_ALLOWED,
    resolve: targetResolver({ servers: [dns.server], timeoutMs: options.timeoutMs ?? 500, tries: options.tries ?? 1 }),
  });
}

const call = (host: string, timeoutMs: number) => ({
  url: `http://${host}:${port}/`,
  method: 'GET',
  headers: {},
  timeoutMs,
});

describe('target DNS', () => {
  it('asks the configured name server, and calls the address it answers', async () => {
    const result = await invoker().invoke(call('ok.chronos.test', 5_000));

    expect(result).toMatchObject({ kind: 'response', status: 200 });
    expect(dns.queries).toContain('ok.chronos.test');
  });

  it("ends a call whose name server never answers within the job's timeout, as connection or timeout", async () => {
    const before = dns.queries.length;
    // The resolver's own timeout is longer than the job's: the job's bounds the call.
    const slowResolver = invoker({ timeoutMs: 5_000, tries: 3 });
    const startedAt = Date.now();

    const result = await slowResolver.invoke(call('silent.chronos.test', 1_000));

    expect(Date.now() - startedAt).toBeLessThan(3_000);
    expect(result.kind).toBe('error');
    expect(['connection', 'timeout']).toContain((result as Extract<HttpResult, { kind: 'error' }>).errorType);
    expect(dns.queries.slice(before)).toContain('silent.chronos.test');
  });

  it("ends a call as connection when the resolver's own timeout comes first", async () => {
    const result = await invoker({ timeoutMs: 300, tries: 1 }).invoke(call('silent-too.chronos.test', 10_000));

    expect(result).toMatchObject({ kind: 'error', errorType: 'connection' });
    expect((result as Extract<HttpResult, { kind: 'error' }>).message).toMatch(/ETIMEOUT/);
  });

  it('holds up no other lookup or call while many lookups hang', async () => {
    const target = invoker({ timeoutMs: 4_000, tries: 1 });
    const hanging = Array.from({ length: HANGING_CALLS }, (_, i) =>
      target.invoke(call(`silent-${i}.chronos.test`, 6_000)),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));

    const startedAt = Date.now();
    const [system, other] = await Promise.all([
      lookup('localhost'), // getaddrinfo on the thread pool, as the AWS SDK's own lookups
      target.invoke(call('ok.chronos.test', 5_000)),
    ]);
    const elapsed = Date.now() - startedAt;

    expect(system.address).toMatch(/^(127\.0\.0\.1|::1)$/);
    expect(other).toMatchObject({ kind: 'response', status: 200 });
    expect(elapsed).toBeLessThan(1_500);
    const ended = await Promise.all(hanging);
    expect(ended.every((result) => result.kind === 'error')).toBe(true);
  });

  it('resolves localhost and address literals without asking the name server', async () => {
    const before = dns.queries.length;

    const byName = await invoker().invoke(call('localhost', 5_000));
    const byLiteral = await invoker().invoke(call('127.0.0.1', 5_000));

    expect(byName).toMatchObject({ kind: 'response', status: 200 });
    expect(byLiteral).toMatchObject({ kind: 'response', status: 200 });
    expect(dns.queries.length).toBe(before);
  });
});
