/**
 * The client's part of issue #22 (priority lanes and flow control per key), against a local stub
 * server answering as the contract says (the backend is merged apart): `flowControl.get` puts the
 * key URL-encoded into the path and answers the key's state or a typed 404; job requests carry
 * `priority` and `flowControl` as given, and answers read back with them typed.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type ChronosClient,
  createChronosClient,
  type FlowControlState,
  type Job,
  type Priority,
  unwrap,
} from '../../client/src/index.ts';

interface Seen {
  method: string;
  url: string;
  body: string;
}

let answer: { status: number; body: unknown } = { status: 200, body: {} };
let seen: Seen[] = [];
let server: Server;
let client: ChronosClient;

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', body });
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = createChronosClient({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token: 'tenant-token',
    retry: { maxRetries: 0 },
  });
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen = [];
});

const STATE: FlowControlState = {
  key: 'stripe/eu acct#1',
  ratePerSecond: 10,
  parallelism: 2,
  inFlight: 2,
  waiting: 37,
  updatedAt: '2026-11-25T07:00:00.000Z',
};

describe('client.flowControl.get', () => {
  it("reads a key's limits, runs in flight and runs waiting, with the key URL-encoded in the path", async () => {
    answer = { status: 200, body: STATE };

    const state = unwrap(await client.flowControl.get('stripe/eu acct#1'));

    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(['GET /v1/flow-control/stripe%2Feu%20acct%231']);
    expect(state).toEqual(STATE);
    // Typed as the contract's shape.
    const counts: [number, number] = [state.inFlight, state.waiting];
    expect(counts).toEqual([2, 37]);
  });

  it('answers a key no job wrote as a typed NOT_FOUND error', async () => {
    answer = {
      status: 404,
      body: { error: { code: 'NOT_FOUND', message: 'No flow-control key unknown', details: [] } },
    };

    const result = await client.flowControl.get('unknown');

    expect(result.error).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(seen[0]?.url).toBe('/v1/flow-control/unknown');
  });
});

describe('priority and flowControl on jobs and runs', () => {
  const job = {
    jobId: '01JD2Q8Z4W6X7Y8Z9A0B1C2D3E',
    status: 'ACTIVE',
    version: 2,
    priority: 'high',
    flowControl: { key: 'stripe', ratePerSecond: 5 },
  };

  it('sends priority and flowControl on create and PATCH as given, and reads them back typed', async () => {
    answer = { status: 201, body: job };
    const created = unwrap(
      await client.jobs.create({
        target: { url: 'https://example.com/hook' },
        schedule: { type: 'interval', everySeconds: 60 },
        priority: 'high',
        flowControl: { key: 'stripe', ratePerSecond: 5 },
      }),
    );
    answer = { status: 200, body: { ...job, priority: 'low', flowControl: { key: 'stripe', parallelism: 3 } } };
    const changed: Job = unwrap(
      await client.jobs.update(job.jobId, { priority: 'low', flowControl: { key: 'stripe', parallelism: 3 } }, 2),
    );

    expect(JSON.parse(seen[0]?.body ?? '{}')).toMatchObject({
      priority: 'high',
      flowControl: { key: 'stripe', ratePerSecond: 5 },
    });
    expect(JSON.parse(seen[1]?.body ?? '{}')).toEqual({
      priority: 'low',
      flowControl: { key: 'stripe', parallelism: 3 },
    });
    const lanes: [Priority | undefined, Priority | undefined] = [created.priority, changed.priority];
    expect(lanes).toEqual(['high', 'low']);
    expect(changed.flowControl?.parallelism).toBe(3);
  });

  it("reads a run's waitedMs and priority, and the system view's lanes", async () => {
    answer = { status: 200, body: { runId: 'r1', priority: 'low', waitedMs: 3200, flowControl: { key: 'stripe' } } };
    const run = unwrap(await client.runs.get('r1'));
    expect([run.waitedMs, run.priority, run.flowControl?.key]).toEqual([3200, 'low', 'stripe']);

    const queue = { visible: 0, inFlight: 0, delayed: 0, depth: 4, oldestMessageAgeSeconds: 2, oldestMessageAge: {} };
    const dlq = { depth: 0, oldestMessageAgeSeconds: null, oldestMessageAge: {} };
    answer = { status: 200, body: { lanes: { high: { dispatchQueue: queue, deadLetterQueue: dlq } } } };
    const system = unwrap(await client.monitoring.system());
    expect(system.lanes?.high.dispatchQueue.depth).toBe(4);
  });
});
