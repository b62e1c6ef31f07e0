import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createConnection } from 'node:net';
import { describe, expect, it } from 'vitest';
import { listenOverflows, parseListenOverflows } from './target-backlog.ts';

const NETSTAT = [
  'TcpExt: SyncookiesSent SyncookiesRecv ListenOverflows ListenDrops',
  'TcpExt: 0 0 341 342',
  'IpExt: InNoRoutes ListenOverflows',
  'IpExt: 0 99',
  '',
].join('\n');

describe('parseListenOverflows', () => {
  it("reads TcpExt's ListenOverflows by its header, not another protocol's column", () => {
    expect(parseListenOverflows(NETSTAT)).toBe(341);
  });

  it('is undefined when the counter or its value is missing', () => {
    expect(parseListenOverflows('TcpExt: SyncookiesSent\nTcpExt: 0\n')).toBeUndefined();
    expect(parseListenOverflows('TcpExt: ListenOverflows\n')).toBeUndefined();
    expect(parseListenOverflows('')).toBeUndefined();
  });
});

/** A server in a child process that listens with a backlog of 1 and then accepts nothing for 2 s. */
const STALLED_SERVER = `
const server = require('node:net').createServer();
server.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
  process.stdout.write(server.address().port + '\\n');
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2000);
  process.exit(0);
});`;

describe.runIf(listenOverflows() !== undefined)('listenOverflows on this machine', () => {
  it('counts the connections a server did not accept in time', async () => {
    const child = spawn(process.execPath, ['-e', STALLED_SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = Number((await once(child.stdout, 'data'))[0].toString().trim());
    const before = listenOverflows() as number;
    const sockets = Array.from({ length: 8 }, () =>
      createConnection({ port, host: '127.0.0.1' }).on('error', () => undefined),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((listenOverflows() as number) - before).toBeGreaterThan(0);
    for (const socket of sockets) socket.destroy();
    child.kill();
  });
});
