/**
 * examples/node-target as a user runs it (its own process, the secret in its environment): the
 * local runtime's calls are verified and answered 200, so the run succeeds; a call without a
 * signature, or signed with another secret, is answered 401.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { eventually } from '../support/http-target.ts';
import { type Api, apiAs } from './support/tenant-api.ts';

const SERVER = new URL('../../examples/node-target/server.ts', import.meta.url).pathname;

let chronos: LocalChronos;
let api: Api;
let target: ChildProcess;
let targetUrl: string;
const lines: string[] = [];

beforeAll(async () => {
  chronos = await startLocalChronos({ port: 0, scannerIntervalMs: 500, scanHorizonSeconds: 5, log: () => undefined });
  api = apiAs(chronos.apiUrl, chronos.token);
  target = spawn(process.execPath, ['--import', 'tsx', SERVER], {
    env: {
      ...process.env,
      PORT: '0',
      CHRONOS_SIGNING_SECRET: chronos.signingSecret,
      ASYNC_STEPS: '3',
      ASYNC_STEP_MS: '300',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  target.stdout?.setEncoding('utf8').on('data', (chunk: string) => lines.push(...chunk.split('\n').filter(Boolean)));
  const listening = await eventually(
    async () => lines.find((line) => line.startsWith('listening on ')),
    (line) => line !== undefined,
    20_000,
  );
  targetUrl = String(listening).slice('listening on '.length);
}, 60_000);
afterAll(async () => {
  target?.kill('SIGTERM');
  await chronos?.stop();
});

const logged = () => lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));

describe('examples/node-target', () => {
  it('verifies the local runtime’s call and answers 200, so the run succeeds', async () => {
    const created = await api('POST', '/v1/jobs', {
      target: { url: `${targetUrl}/hook`, body: { hello: 'world' } },
      schedule: { type: 'once' },
    });
    expect(created.status).toBe(201);

    const run = await eventually(
      async () => (await api('GET', `/v1/jobs/${created.body.jobId}/runs`)).body.items[0],
      (latest) => latest !== undefined && !['QUEUED', 'RUNNING'].includes(latest.status),
      20_000,
    );

    expect(run).toMatchObject({ status: 'SUCCEEDED', httpStatus: 200 });
    expect(run.responseExcerpt).toContain(`"received":"${created.body.jobId}:`);
    expect(logged()).toContainEqual(expect.objectContaining({ verified: true, path: '/hook', bytes: 17 }));
  }, 60_000);

  it('takes an async job’s call with 202, heartbeats its progress and completes it with its output', async () => {
    const created = await api('POST', '/v1/jobs', {
      target: { url: `${targetUrl}/export` },
      schedule: { type: 'once' },
      async: { heartbeatTimeoutSeconds: 10 },
    });
    expect(created.status).toBe(201);
    const run = await eventually(
      async () => (await api('GET', `/v1/jobs/${created.body.jobId}/runs`)).body.items[0],
      (latest) => latest !== undefined && !['QUEUED', 'RUNNING'].includes(latest.status),
      20_000,
    );
    expect(run).toMatchObject({ status: 'SUCCEEDED', progress: 100, output: { steps: 3 } });
    expect(logged()).toContainEqual({ async: 'heartbeat', step: 3, status: 200 });
    expect(logged()).toContainEqual({ async: 'completed', status: 200 });
  }, 60_000);

  it('answers 401 to a call without a signature and to one signed with another secret', async () => {
    const unsigned = await fetch(`${targetUrl}/hook`, { method: 'POST', body: '{}' });
    const forged = await fetch(`${targetUrl}/hook`, {
      method: 'POST',
      body: '{}',
      headers: {
        'webhook-id': 'x:1',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      },
    });

    expect(unsigned.status).toBe(401);
    expect(await unsigned.text()).toMatch(/^missing_headers/);
    expect(forged.status).toBe(401);
    expect(await forged.text()).toMatch(/^bad_signature/);
  });
});
