/**
 * The bench's HTTP target, in its own process: a keep-alive server (TARGET_LISTEN_SOCKETS sockets on
 * one port, target-backlog.ts) that answers 200 at once and records when each request arrived
 * (before its body is read) with its Idempotency-Key and path; a path with `?workMs=<n>` is answered
 * n ms later (a slow target: the lanes workload's flood). Also a load loop that drives it directly,
 * for the "no scheduler" calls/s limit.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveParent } from './child-process.ts';
import { TARGET_LISTEN_BACKLOG, TARGET_LISTEN_SOCKETS } from './target-backlog.ts';

/** Arrival time (epoch ms), Idempotency-Key and path of each call. */
const calls: Array<[number, string, string]> = [];
function answer(req: IncomingMessage, res: ServerResponse) {
  calls.push([Date.now(), String(req.headers['idempotency-key'] ?? ''), String(req.url ?? '')]);
  req.resume();
  const workMs = Number(/[?&]workMs=(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
  const done = () => {
    res.statusCode = 200;
    res.end('ok');
  };
  req.on('end', () => (workMs > 0 ? setTimeout(done, workMs) : done()));
}

/** One of the listening sockets, all on one port (SO_REUSEPORT: each its own accept queue). */
function listening(port: number): Promise<Server> {
  const server = createServer(answer);
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 65_000;
  return new Promise((resolve) =>
    server.listen({ port, host: '127.0.0.1', backlog: TARGET_LISTEN_BACKLOG, reusePort: true }, () => resolve(server)),
  );
}

const first = await listening(0);
const port = (first.address() as AddressInfo).port;
for (let i = 1; i < TARGET_LISTEN_SOCKETS; i++) await listening(port);
serveParent({ url: `http://127.0.0.1:${port}` }, (what) => {
  if (what === 'calls') return calls;
  if (what === 'count') return calls.length;
  if (what === 'reset') return void calls.splice(0);
  throw new Error(`unknown request ${what}`);
});
