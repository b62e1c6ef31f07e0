/**
 * The guarded invoker against a local server standing in for one of Chronos' own ports (the local
 * API, DynamoDB Local, fauxqs): refused with loopback allowed, by any spelling of loopback and by
 * a public-looking name that resolves to it (an injected resolver stands in for DNS), without a
 * connection; other loopback ports stay callable.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resolver } from '#adapters/http/guarded-lookup';
import { HttpTargetInvoker } from '#adapters/http/invoker';

let own: Server;
let ownPort: number;
let other: Server;
let otherPort: number;
let ownCalls = 0;

async function listen(onRequest: () => void): Promise<[Server, number]> {
  const server = createServer((_req, res) => {
    onRequest();
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return [server, (server.address() as AddressInfo).port];
}

beforeAll(async () => {
  [own, ownPort] = await listen(() => ownCalls++);
  [other, otherPort] = await listen(() => undefined);
});
afterAll(() => {
  own?.close();
  other?.close();
});

const resolveToLoopback: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
const invoker = () =>
  new HttpTargetInvoker(1024, {
    rules: { allowLoopback: true, ownLoopbackPorts: [ownPort] },
    resolve: resolveToLoopback,
  });
const call = (url: string) => ({
  url,
  method: 'POST',
  headers: { 'x-amz-target': 'DynamoDB_20120810.Scan', 'content-type': 'application/x-amz-json-1.0' },
  body: '{"TableName":"jobs"}',
  timeoutMs: 5_000,
});

describe("Chronos' own loopback ports at call time", () => {
  it.each([
    ['a loopback address', () => `http://127.0.0.1:${ownPort}/`],
    ['localhost', () => `http://localhost:${ownPort}/`],
    ['a public-looking name resolving to loopback', () => `http://sneaky.example.test:${ownPort}/`],
  ])('refuses %s as blocked_target without connecting', async (_label, url) => {
    const before = ownCalls;
    const result = await invoker().invoke(call(url()));
    expect(result).toMatchObject({ kind: 'error', errorType: 'blocked_target' });
    expect(ownCalls).toBe(before);
  });

  it('still calls another loopback port, by address and by a name resolving to loopback', async () => {
    expect(await invoker().invoke(call(`http://127.0.0.1:${otherPort}/`))).toMatchObject({ kind: 'response' });
    expect(await invoker().invoke(call(`http://fine.example.test:${otherPort}/`))).toMatchObject({
      kind: 'response',
      status: 200,
    });
  });
});
