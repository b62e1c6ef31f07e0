/**
 * A local HTTP endpoint standing in for a team's service: records when each call arrived, and
 * answers per path (default 200). Given a certificate, it serves https.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createSecureServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Certificate } from './trusted-certificate.ts';

export interface RecordedCall {
  at: number;
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** When the answer was sent (after the path's delay); unset while the call is still open. */
  answeredAt?: number;
}

export interface HttpTarget {
  url(path: string): string;
  calls: RecordedCall[];
  callsTo(path: string): RecordedCall[];
  /** Resolves once `count` calls to `path` have arrived, or rejects after `timeoutMs`. */
  waitForCalls(path: string, count: number, timeoutMs: number): Promise<RecordedCall[]>;
  close(): Promise<void>;
}

export async function startHttpTarget(
  respond: (path: string) => {
    status: number;
    body?: string;
    delayMs?: number;
    headers?: Record<string, string>;
  } = () => ({
    status: 200,
  }),
  options: { certificate?: Certificate } = {},
): Promise<HttpTarget> {
  const calls: RecordedCall[] = [];
  const listener: RequestListener = (req, res) => {
    const at = Date.now();
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const path = req.url ?? '/';
      const call: RecordedCall = { at, method: req.method ?? '', path, headers: req.headers, body };
      calls.push(call);
      const answer = respond(path);
      const reply = () => {
        if (res.destroyed) return;
        call.answeredAt = Date.now();
        res.statusCode = answer.status;
        for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
        res.end(answer.body ?? 'ok');
      };
      if (answer.delayMs) setTimeout(reply, answer.delayMs).unref();
      else reply();
    });
  };
  const server: Server = options.certificate
    ? createSecureServer(options.certificate, listener)
    : createServer(listener);
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const scheme = options.certificate ? 'https' : 'http';
  const base = `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const callsTo = (path: string) => calls.filter((c) => c.path === path);
  return {
    url: (path) => `${base}${path}`,
    calls,
    callsTo,
    waitForCalls: async (path, count, timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      while (callsTo(path).length < count) {
        if (Date.now() > deadline)
          throw new Error(`expected ${count} calls to ${path} within ${timeoutMs} ms, got ${callsTo(path).length}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return callsTo(path);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls `read` until `done` holds for its result, or fails after `timeoutMs`. */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  while (!done(last)) {
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    last = await read();
  }
  return last;
}
