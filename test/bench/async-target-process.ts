/**
 * The async workload's HTTP target, in its own process (so its workers' CPU is not counted as the
 * scheduler's): it records each call like target-process.ts, takes every call that carries a
 * Chronos-Callback-Url with 202, and hands the run to a worker. A worker heartbeats through the
 * callback URL every `heartbeatEveryMs` from the call on and completes the run `succeeded` after
 * `workMs`; a worker whose path contains `/silent/` goes silent after its first heartbeat. The
 * callbacks go out over one keep-alive pool of `poolSize` sockets (the worker pool), each recorded
 * with its status and round trip.
 *
 *   tsx async-target-process.ts '{"heartbeatEveryMs":5000,"workMs":60000,"poolSize":64}'
 */
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CallbackRecord } from './async-report.ts';
import { serveParent } from './child-process.ts';
import { TARGET_LISTEN_BACKLOG } from './target-backlog.ts';

interface WorkerPlan {
  heartbeatEveryMs: number;
  workMs: number;
  poolSize: number;
}

const plan = JSON.parse(process.argv[2] ?? '{}') as WorkerPlan;
if (!(plan.heartbeatEveryMs > 0 && plan.workMs > plan.heartbeatEveryMs && plan.poolSize > 0))
  throw new Error(`async target: bad plan ${process.argv[2]}`);

/** A callback that takes longer than this counts as unanswered (status 0). */
const CALLBACK_TIMEOUT_MS = 30_000;

/** Arrival time (epoch ms), Idempotency-Key and path of each call. */
const calls: Array<[number, string, string]> = [];
const callbacks: CallbackRecord[] = [];
let accepted = 0;
let withoutCallbackUrl = 0;
let working = 0;
const agent = new Agent({ keepAlive: true, maxSockets: plan.poolSize });
const sleepUntil = (at: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));

/** POSTs `body` as JSON and records the callback; resolves with its status (0 without an answer). */
function post(url: string, body: unknown, key: string, kind: CallbackRecord['kind']): Promise<number> {
  const sentAt = Date.now();
  return new Promise((resolve) => {
    const done = (status: number) => {
      callbacks.push({ key, kind, sentAt, answeredAt: Date.now(), status });
      resolve(status);
    };
    const payload = JSON.stringify(body);
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        timeout: CALLBACK_TIMEOUT_MS,
      },
      (res) => {
        res.resume();
        res.on('end', () => done(res.statusCode ?? 0));
        res.on('error', () => done(0));
      },
    );
    req.on('timeout', () => req.destroy(new Error('callback timed out')));
    req.on('error', () => done(0));
    req.end(payload);
  });
}

/** One run's worker: heartbeats from the call on, then completes (a silent one stops after its first heartbeat). */
async function work(key: string, callbackUrl: string, silent: boolean): Promise<void> {
  const acceptedAt = Date.now();
  const beats = silent ? 1 : Math.ceil(plan.workMs / plan.heartbeatEveryMs) - 1;
  for (let k = 1; k <= beats; k++) {
    await sleepUntil(acceptedAt + k * plan.heartbeatEveryMs);
    const elapsed = k * plan.heartbeatEveryMs;
    const progress = Math.round((100 * elapsed) / plan.workMs);
    const status = await post(`${callbackUrl}/heartbeat`, { progress, message: `step ${k}` }, key, 'heartbeat');
    // Refused: the run is no longer this worker's (ended, superseded). Recorded; the bench fails on it.
    if (status !== 200) return;
  }
  if (silent) return;
  await sleepUntil(acceptedAt + plan.workMs);
  await post(`${callbackUrl}/complete`, { status: 'succeeded', output: { steps: beats } }, key, 'complete');
}

const server = createServer((req, res) => {
  const key = String(req.headers['idempotency-key'] ?? '');
  const path = String(req.url ?? '');
  calls.push([Date.now(), key, path]);
  const callbackUrl = req.headers['chronos-callback-url'];
  req.resume();
  req.on('end', () => {
    if (typeof callbackUrl !== 'string') {
      withoutCallbackUrl++;
      res.statusCode = 200;
      res.end('ok');
      return;
    }
    accepted++;
    working++;
    res.statusCode = 202;
    res.end('taken');
    void work(key, callbackUrl, path.includes('/silent/')).finally(() => working--);
  });
});
server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;
server.listen({ port: 0, host: '127.0.0.1', backlog: TARGET_LISTEN_BACKLOG }, () => {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  serveParent({ url }, (what) => {
    if (what === 'calls') return calls;
    if (what === 'count') return calls.length;
    if (what === 'working') return working;
    if (what === 'async') return { accepted, withoutCallbackUrl, working, callbacks };
    throw new Error(`unknown request ${what}`);
  });
});
