/**
 * Flow control per key (issue #22): an executor SIGKILLed while its call holds the key's only slot
 * loses no run, and the slot comes back. The executor runs in a process of its own on the test's
 * emulators; it is killed once the target has the first call, and another one starts. The killed
 * run is taken over once its lease ends (at-least-once), and the two runs that waited for the slot
 * are called after it — never more than one call of the key open at the target.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalSecretCipher } from '#adapters/secrets/local-cipher';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { eventually } from '../support/http-target.ts';
import { mostOpenAtOnce } from '../support/overlap.ts';
import type { ExecutorProcessSettings } from './support/executor-process.ts';
import { type Api, apiAs } from './support/tenant-api.ts';

const CALL_MS = 3_000;
const LEASE_MARGIN_SECONDS = 2;
const settings: Omit<ExecutorProcessSettings, 'endpoints'> = {
  namePrefix: 'flow-kill-',
  secretsLocalKey: LocalSecretCipher.generateKey(),
  leaseMarginSeconds: LEASE_MARGIN_SECONDS,
};

/** Each call's arrival and the moment its connection ended: answered, or cut by the dying executor. */
const calls: Array<{ path: string; at: number; endedAt?: number }> = [];
let target: Server;
let targetUrl: string;
let chronos: LocalChronos;
let api: Api;
const executors: ChildProcess[] = [];

async function startExecutor(): Promise<ChildProcess> {
  const script = fileURLToPath(new URL('./support/executor-process.ts', import.meta.url));
  const child = fork(script, [JSON.stringify({ ...settings, endpoints: chronos.endpoints })], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  executors.push(child);
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the executor process exited (${code}) before it was ready`)));
  });
  return child;
}

beforeAll(async () => {
  target = createServer((req, res) => {
    const call: { path: string; at: number; endedAt?: number } = { path: req.url ?? '', at: Date.now() };
    calls.push(call);
    res.on('close', () => {
      call.endedAt = Date.now();
    });
    req.resume();
    setTimeout(() => res.end('ok'), CALL_MS).unref();
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  chronos = await startLocalChronos({
    port: 0,
    ...settings,
    scannerIntervalMs: 1_000,
    components: { executor: false },
    log: () => undefined,
  });
  const tenant = await chronos.tenants.create('flow-kill', { maxConcurrentRuns: 1_000 });
  api = apiAs(chronos.apiUrl, tenant.token.token);
}, 60_000);
afterAll(async () => {
  for (const child of executors) child.kill('SIGKILL');
  await chronos?.stop();
  await new Promise((resolve) => target?.close(resolve));
});

describe('flow control: an executor killed holding a slot', () => {
  it('loses no run, and the slot comes back at the lease end', async () => {
    const first = await startExecutor();
    const at = new Date(Math.ceil((Date.now() + 4_000) / 1000) * 1000).toISOString();
    const jobIds: string[] = [];
    for (const name of ['a', 'b', 'c']) {
      const created = await api('POST', '/v1/jobs', {
        target: { url: `${targetUrl}/${name}` },
        schedule: { type: 'once', at },
        timeoutSeconds: 5,
        flowControl: { key: 'one-slot', parallelism: 1 },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      jobIds.push(created.body.jobId);
    }

    // The first call holds the slot: kill its executor mid-call, and start another. The premise:
    // the other two runs already wait for the key (their gate recorded them, their messages went
    // back delayed). Killed before a run's gate answered, the executor would take that run's
    // message with it until the message's visibility timeout — recovery this test does not time.
    await eventually(
      async () => calls.length,
      (n) => n >= 1,
      20_000,
    );
    await eventually(
      async () => (await api('GET', '/v1/flow-control/one-slot')).body as { waiting: number },
      (key) => key.waiting === 2,
      2_000,
    );
    const killedAt = Date.now();
    first.kill('SIGKILL');
    await startExecutor();

    const runsOf = async (jobId: string) => (await api('GET', `/v1/jobs/${jobId}/runs`)).body.items;
    const finished = await eventually(
      () => Promise.all(jobIds.map(runsOf)),
      (all) => all.every((items) => items.some((run: { status: string }) => run.status === 'SUCCEEDED')),
      60_000,
    );

    // Every run of the key called, one at a time, the killed one again after its lease.
    expect(mostOpenAtOnce(calls.map((call) => ({ at: call.at, answeredAt: call.endedAt })))).toBe(1);
    const killedPath = calls[0]?.path;
    expect(calls.filter((call) => call.path === killedPath)).toHaveLength(2);
    expect(calls).toHaveLength(4);
    const takenOver = finished.flat().find((run: { recoveries?: number }) => (run.recoveries ?? 0) > 0);
    expect(takenOver).toBeDefined();
    // The slot came back only when the dead holder's lease ended (its timeout plus the margin, from
    // about when its call started): no call of the key before then.
    const leaseEnd = (calls[0]?.at as number) + 5_000 + LEASE_MARGIN_SECONDS * 1000;
    expect(killedAt).toBeLessThan(leaseEnd);
    for (const call of calls.slice(1)) expect(call.at).toBeGreaterThanOrEqual(leaseEnd - 1_000);
    expect((await api('GET', '/v1/flow-control/one-slot')).body).toMatchObject({ inFlight: 0, waiting: 0 });
  }, 120_000);
});
