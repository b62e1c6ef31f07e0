/**
 * The misbehaving target: records every call Chronos makes (arrival time, Idempotency-Key,
 * Chronos-Run-Id and its attempt) and decides each run's fate from the run id and the seed, so a
 * recovered run meets the same behaviour again and a run is reproducible from its id:
 * answer 500, hold the response past the job's timeout, destroy the connection, or answer 200.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseRunId } from '#core/run-id';
import { keyedUniform } from './seeded-random.ts';

export type Fault = 'http500' | 'hang' | 'reset' | 'none';

export interface TargetCall {
  /** When the request arrived (ms). */
  at: number;
  path: string;
  idempotencyKey: string;
  runId: string;
  attempt: number;
  fault: Fault;
  /** True when the caller hung up before the target answered (its timeout, or a killed executor); never for resets. */
  callerHungUp: boolean;
  /** The request body, kept for workflow tasks only (paths under WORKFLOW_PATH): `load` must carry its parents' results. */
  body?: string;
}

/** Workflow tasks are called under this path: `/wf/<workflow name>/<task key>`. */
export const WORKFLOW_PATH = '/wf/';

export interface ChaosTarget {
  url(path: string): string;
  calls: TargetCall[];
  /** Calls `listener` with every call as it arrives (before it is answered). */
  onCall(listener: (call: TargetCall) => void): void;
  close(): Promise<void>;
}

export interface FaultShares {
  http500: number;
  hang: number;
  reset: number;
}

/** The fault a run meets: a pure function of the seed and the run id. */
export function faultOf(seed: number, runId: string, shares: FaultShares): Fault {
  const u = keyedUniform(seed, runId);
  if (u < shares.http500) return 'http500';
  if (u < shares.http500 + shares.hang) return 'hang';
  if (u < shares.http500 + shares.hang + shares.reset) return 'reset';
  return 'none';
}

export async function startChaosTarget(options: {
  seed: number;
  faults: FaultShares;
  hangMs: number;
}): Promise<ChaosTarget> {
  const calls: TargetCall[] = [];
  const listeners: Array<(call: TargetCall) => void> = [];
  const server: Server = createServer((req, res) => {
    const at = Date.now();
    const header = (name: string) => String(req.headers[name] ?? '');
    const runId = header('chronos-run-id');
    const call: TargetCall = {
      at,
      path: req.url ?? '/',
      idempotencyKey: header('idempotency-key'),
      runId,
      attempt: parseRunId(runId)?.attempt ?? 0,
      fault: runId ? faultOf(options.seed, runId, options.faults) : 'none',
      callerHungUp: false,
    };
    calls.push(call);
    for (const listener of listeners) listener(call);
    res.on('close', () => {
      if (!res.writableFinished && call.fault !== 'reset') call.callerHungUp = true;
    });
    const chunks: Buffer[] = [];
    const keepBody = call.path.startsWith(WORKFLOW_PATH);
    req.on('data', (chunk: Buffer) => {
      if (keepBody) chunks.push(chunk);
    });
    req.on('end', () => {
      if (keepBody) call.body = Buffer.concat(chunks).toString('utf8');
      switch (call.fault) {
        case 'reset':
          req.socket.destroy();
          return;
        case 'hang':
          setTimeout(() => {
            if (!res.destroyed) res.end('too late');
          }, options.hangMs).unref();
          return;
        case 'http500':
          res.statusCode = 500;
          res.end('chaos: internal error');
          return;
        default:
          res.end('ok');
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path) => `${base}${path}`,
    calls,
    onCall: (listener) => void listeners.push(listener),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
