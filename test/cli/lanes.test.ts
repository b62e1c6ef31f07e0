/**
 * The CLI's part of issue #22 as spawned processes against a local stub of the contract's answers
 * (the backend is merged apart): `--priority` and the `--flow-*` flags in the bodies of
 * `jobs create` and `jobs edit`, priority and flow control in `jobs get` and `runs get` (with the
 * time a run waited for its key), `flow-control get <key>` as text and JSON, and bad flags as
 * usage errors naming the flag, before anything is sent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.ts';

const JOB_ID = '01JD2Q8Z4W6X7Y8Z9A0B1C2D3E';
const RUN_ID = `${JOB_ID}_1795507200000_1`;

const job = {
  jobId: JOB_ID,
  name: 'invoice-sync',
  status: 'ACTIVE',
  target: { url: 'https://billing.example.com/sync', method: 'POST', headers: {} },
  schedule: { type: 'interval', everySeconds: 60 },
  nextFireAt: '2026-11-25T08:00:00.000Z',
  misfire: 'fire_once',
  overlap: 'allow',
  timeoutSeconds: 30,
  async: null,
  version: 4,
  createdAt: '2026-11-25T07:00:00.000Z',
  latestRun: null,
  upcoming: [],
  priority: 'high',
  flowControl: { key: 'stripe', ratePerSecond: 10, parallelism: 2 },
};

const run = {
  runId: RUN_ID,
  jobId: JOB_ID,
  attempt: 1,
  status: 'SUCCEEDED',
  scheduledFor: '2026-11-25T07:00:00.000Z',
  startedAt: '2026-11-25T07:00:03.200Z',
  completedAt: '2026-11-25T07:00:03.500Z',
  httpStatus: 200,
  progress: null,
  priority: 'low',
  flowControl: { key: 'stripe', ratePerSecond: 10 },
  waitedMs: 3200,
};

const state = {
  key: 'stripe/eu',
  ratePerSecond: 10,
  parallelism: 2,
  inFlight: 2,
  waiting: 37,
  updatedAt: '2026-11-25T07:00:00.000Z',
};

interface Seen {
  method: string;
  url: string;
  body: unknown;
}
let seen: Seen[] = [];
let server: Server;
let env: Record<string, string>;

function answerFor(method: string, url: string, body: Record<string, unknown>): [number, unknown] {
  if (method === 'POST' && url === '/v1/jobs') return [201, { ...job, ...body, jobId: JOB_ID }];
  if (method === 'GET' && url === `/v1/jobs/${JOB_ID}`) return [200, job];
  if (method === 'PATCH' && url === `/v1/jobs/${JOB_ID}`) return [200, { ...job, ...body, version: 5 }];
  if (method === 'GET' && url === `/v1/runs/${RUN_ID}`) return [200, run];
  if (method === 'GET' && url === '/v1/flow-control/stripe%2Feu') return [200, state];
  return [404, { error: { code: 'NOT_FOUND', message: `Nothing at ${url}`, details: [] } }];
}

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.on('data', (chunk) => {
      text += chunk;
    });
    req.on('end', () => {
      const body = text ? JSON.parse(text) : undefined;
      seen.push({ method: req.method ?? '', url: req.url ?? '', body });
      const [status, answer] = answerFor(req.method ?? '', req.url ?? '', body ?? {});
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  env = {
    CHRONOS_API_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    CHRONOS_TOKEN: 'tenant-token',
    TZ: 'UTC',
  };
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  seen = [];
});

const chronosCli = (...args: string[]) => runCli(args, env);
const sentBody = (method: string) => seen.find((s) => s.method === method)?.body;

describe('jobs create and edit with a lane and flow control', () => {
  it('sends --priority and the --flow-* flags as priority and flowControl', async () => {
    const created = await chronosCli(
      'jobs',
      'create',
      '--every',
      '1m',
      '--url',
      'https://billing.example.com/sync',
      '--priority',
      'high',
      '--flow-key',
      'stripe',
      '--flow-rate',
      '10',
      '--flow-parallelism',
      '2',
    );

    expect(created.code, created.stderr).toBe(0);
    expect(sentBody('POST')).toMatchObject({
      priority: 'high',
      flowControl: { key: 'stripe', ratePerSecond: 10, parallelism: 2 },
    });
    const plain = await chronosCli('jobs', 'create', '--every', '1m', '--url', 'https://billing.example.com/sync');
    expect(plain.code, plain.stderr).toBe(0);
    // Nothing given: the API's default lane, no flow control.
    expect(seen.at(-1)?.body).not.toHaveProperty('priority');
    expect(seen.at(-1)?.body).not.toHaveProperty('flowControl');
  });

  it("edits a limit over the job's current flow control, the lane alone, and removes flow control", async () => {
    const rate = await chronosCli('jobs', 'edit', JOB_ID, '--flow-rate', '2.5');
    expect(rate.code, rate.stderr).toBe(0);
    // The key and parallelism the job has are kept: the API replaces flowControl whole.
    expect(sentBody('PATCH')).toEqual({ flowControl: { key: 'stripe', ratePerSecond: 2.5, parallelism: 2 } });

    seen = [];
    expect((await chronosCli('jobs', 'edit', JOB_ID, '--priority', 'low')).code).toBe(0);
    expect(sentBody('PATCH')).toEqual({ priority: 'low' });

    seen = [];
    expect((await chronosCli('jobs', 'edit', JOB_ID, '--flow-key', 'adyen', '--flow-parallelism', '4')).code).toBe(0);
    // A new key starts from the limits given, not the old key's.
    expect(sentBody('PATCH')).toEqual({ flowControl: { key: 'adyen', parallelism: 4 } });

    seen = [];
    expect((await chronosCli('jobs', 'edit', JOB_ID, '--remove-flow-control')).code).toBe(0);
    expect(sentBody('PATCH')).toEqual({ flowControl: null });
  });

  it('refuses bad lane and flow flags with exit 2 naming the flag, before anything is sent', async () => {
    const base = ['jobs', 'create', '--every', '1m', '--url', 'https://x.example.com/'];
    const cases: [string[], RegExp][] = [
      [['--priority', 'urgent'], /--priority.*urgent.*high, normal, low/s],
      [['--flow-key', 'k', '--flow-rate', '0'], /--flow-rate.*0\.01 to 10000/s],
      [['--flow-key', 'k', '--flow-rate', 'fast'], /--flow-rate.*must be a number/s],
      [['--flow-key', 'k', '--flow-parallelism', '1.5'], /--flow-parallelism.*whole number/s],
      [['--flow-key', 'k', '--flow-parallelism', '10001'], /--flow-parallelism.*1 to 10000/s],
      [['--flow-key', 'k'.repeat(129), '--flow-rate', '1'], /--flow-key.*1 to 128 characters/s],
      [['--flow-rate', '5'], /--flow-rate and --flow-parallelism need --flow-key/],
      [['--flow-key', 'stripe'], /--flow-key needs a limit/],
    ];
    for (const [flags, message] of cases) {
      const refused = await chronosCli(...base, ...flags);
      expect(refused.code, flags.join(' ')).toBe(2);
      expect(refused.stderr, flags.join(' ')).toMatch(message);
    }
    const both = await chronosCli('jobs', 'edit', JOB_ID, '--remove-flow-control', '--flow-rate', '1');
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--remove-flow-control cannot be given with --flow-\* options/);
    // Nothing but the edit's read of the job was sent.
    expect(seen.filter((s) => s.method !== 'GET')).toEqual([]);
  });
});

describe('priority and flow control shown', () => {
  it("shows a job's lane and flow control, and how long a run waited for its key", async () => {
    const shown = await chronosCli('jobs', 'get', JOB_ID);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^Priority\s+high$/m);
    expect(shown.stdout).toMatch(/^Flow control\s+key stripe: 10\/s, 2 in flight at most$/m);

    const shownRun = await chronosCli('runs', 'get', RUN_ID);
    expect(shownRun.code, shownRun.stderr).toBe(0);
    expect(shownRun.stdout).toMatch(/^Priority\s+low$/m);
    expect(shownRun.stdout).toMatch(/^Waited\s+3\.2 s for key stripe$/m);
  });

  it("prints a key's state with flow-control get (the key URL-encoded), as JSON with --json, and a 404 as exit 1", async () => {
    const human = await chronosCli('flow-control', 'get', 'stripe/eu');
    const json = await chronosCli('flow-control', 'get', 'stripe/eu', '--json');
    const unknown = await chronosCli('flow-control', 'get', 'nobody');

    expect(human.code, human.stderr).toBe(0);
    expect(seen[0]?.url).toBe('/v1/flow-control/stripe%2Feu');
    expect(human.stdout.trimEnd().split('\n')).toEqual([
      'Key             stripe/eu',
      'Rate            10 calls started per second',
      'Parallelism     2 calls in flight at most',
      'In flight       2',
      'Waiting         37',
      'Limits written  2026-11-25 07:00:00 UTC',
    ]);
    expect(JSON.parse(json.stdout)).toEqual(state);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/NOT_FOUND/);
  });
});
