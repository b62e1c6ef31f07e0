/**
 * The bench's HTTP target, in its own process: a keep-alive server that answers 200 at once and
 * records when each request arrived (before its body is read) with its Idempotency-Key and path; a
 * path with `?workMs=<n>` is answered n ms later (a slow target: the lanes workload's flood). Also a
 * load loop that drives it directly, for the "no scheduler" calls/s limit.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveParent } from './child-process.ts';
import { TARGET_LISTEN_BACKLOG } from './target-backlog.ts';

/** Arrival time (epoch ms), Idempotency-Key and path of each call. */
const calls: Array<[number, string, string]> = [];
const server = createServer((req, res) => {
  calls.push([Date.now(), String(req.headers['idempotency-key'] ?? ''), String(req.url ?? '')]);
  req.resume();
  const workMs = Number(/[?&]workMs=(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
  const answer = () => {
    res.statusCode = 200;
    res.end('ok');
  };
  req.on('end', () => (workMs > 0 ? setTimeout(answer, workMs) : answer()));
});
server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;
server.listen({ port: 0, host: '127.0.0.1', backlog: TARGET_LISTEN_BACKLOG }, () => {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  serveParent({ url }, (what) => {
    if (what === 'calls') return calls;
    if (what === 'count') return calls.length;
    if (what === 'reset') return void calls.splice(0);
    throw new Error(`unknown request ${what}`);
  });
});
