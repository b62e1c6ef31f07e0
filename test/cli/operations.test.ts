/**
 * `chronos dead-letters list|redrive`, `chronos stats` and `chronos watch` as spawned processes
 * against the local runtime: a dead-lettered run listed and re-driven (and called), the stats of
 * the calls made, and the watch table once (`--once`), as JSON lines, and live until Ctrl-C.
 */
import { spawn } from 'node:child_process';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators/local-clients';
import { apiAs } from '../e2e/support/tenant-api.ts';
import { eventually, type HttpTarget, startHttpTarget } from '../support/http-target.ts';
import { freshHome, runCli } from './support/run-cli.ts';

let chronos: LocalChronos;
let target: HttpTarget;
let env: Record<string, string>;

beforeAll(async () => {
  target = await startHttpTarget();
  chronos = await startLocalChronos({ port: 0, scannerIntervalMs: 500, scanHorizonSeconds: 120, log: () => undefined });
  env = { CHRONOS_API_URL: chronos.apiUrl, CHRONOS_TOKEN: chronos.token, TZ: 'Europe/Berlin' };
}, 60_000);
afterAll(async () => {
  await chronos?.stop();
  await target?.close();
});

const chronosCli = (...args: string[]) => runCli(args, env);
const api = () => apiAs(chronos.apiUrl, chronos.token);

/**
 * A run the dead-letter queue ended (as SQS does after too many receives) before it was due; its
 * id. Due in 8 s: a re-drive keeps the occurrence's due time, so it is called soon after.
 */
async function deadLetteredRun(): Promise<{ jobId: string; runId: string }> {
  const created = await api()('POST', '/v1/jobs', {
    target: { url: target.url('/dead') },
    schedule: { type: 'once', at: new Date(Date.now() + 8_000).toISOString() },
  });
  const jobId = created.body.jobId as string;
  const [run] = (await api()('GET', `/v1/jobs/${jobId}/runs`)).body.items;
  const sqs = new SQSClient({ endpoint: chronos.endpoints.sqs, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const message = {
    tenantId: chronos.tenantId,
    jobId,
    scheduledFor: Date.parse(run.scheduledFor),
    attempt: 1,
    runId: run.runId,
  };
  await sqs.send(
    new SendMessageCommand({ QueueUrl: chronos.queues.deadLetter.url, MessageBody: JSON.stringify(message) }),
  );
  sqs.destroy();
  await eventually(
    async () => (await api()('GET', '/v1/dead-letters')).body.items as Array<{ runId: string }>,
    (items) => items.some((item) => item.runId === run.runId),
    15_000,
  );
  return { jobId, runId: run.runId };
}

describe('chronos dead-letters', () => {
  it('lists a dead-lettered run and re-drives it, which calls the target', async () => {
    const { runId } = await deadLetteredRun();

    const listed = await chronosCli('dead-letters', 'list');
    const json = await chronosCli('dead-letters', 'list', '--json');
    const redriven = await chronosCli('dead-letters', 'redrive', runId);
    const again = await chronosCli('dead-letters', 'redrive', runId);
    const unknown = await chronosCli('dead-letters', 'redrive', 'no-such-run');

    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(
      new RegExp(`^${runId}\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d CES?T\\s+1\\s+DEAD_LETTERED`, 'm'),
    );
    expect(JSON.parse(json.stdout).map((run: { runId: string }) => run.runId)).toContain(runId);
    expect(redriven.code, redriven.stderr).toBe(0);
    expect(redriven.stdout).toMatch(/^Re-driven as run \S+_2 \(attempt 2, QUEUED\)$/m);
    await target.waitForCalls('/dead', 1, 25_000);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('CONFLICT');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('NOT_FOUND');
  }, 60_000);
});

describe('chronos stats', () => {
  it('shows the tenant’s runs and rates, and the same numbers as JSON', async () => {
    const human = await chronosCli('stats', '--window', '5m');
    const json = await chronosCli('stats', '--window', '5m', '--json');
    const wrongWindow = await chronosCli('stats', '--window', '7d');

    expect(human.code, human.stderr).toBe(0);
    const stats = JSON.parse(json.stdout);
    expect(stats).toMatchObject({ scope: chronos.tenantId, window: '5m' });
    expect(human.stdout).toMatch(new RegExp(`^Scope\\s+${chronos.tenantId}$`, 'm'));
    expect(human.stdout).toMatch(new RegExp(`^Runs\\s+${stats.runs.total} total: `, 'm'));
    expect(human.stdout).toMatch(/^Start lag\s+p50 /m);
    expect(wrongWindow.code).toBe(2);
  });
});

describe('chronos watch', () => {
  it('draws the job’s runs once with --once, and as one JSON line with --json', async () => {
    const created = await api()('POST', '/v1/jobs', {
      name: 'watched',
      target: { url: target.url('/watched') },
      schedule: { type: 'interval', everySeconds: 3600 },
    });
    const jobId = created.body.jobId as string;
    await target.waitForCalls('/watched', 1, 15_000);
    await eventually(
      async () => (await api()('GET', `/v1/jobs/${jobId}/runs`)).body.items[0]?.status,
      (status) => status === 'SUCCEEDED',
      15_000,
    );

    const once = await chronosCli('watch', jobId, '--once');
    const json = await chronosCli('watch', jobId, '--once', '--json');
    const missing = await chronosCli('watch', '01M8000000000000000000000Z', '--once');
    const badInterval = await chronosCli('watch', jobId, '--interval', '0');

    expect(once.code, once.stderr).toBe(0);
    const lines = once.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^${jobId} \\(watched\\)  ACTIVE  every 1h  next \\d{4}-`));
    expect(lines[2]).toMatch(/^RUN\s+SCHEDULED\s+ATTEMPT\s+STATUS\s+HTTP\s+START LAG\s+DURATION\s+ERROR$/);
    expect(lines[3]).toMatch(new RegExp(`^${jobId}_\\d+_1\\s+.* CES?T\\s+1\\s+SUCCEEDED\\s+200\\s`));
    expect(once.stdout).not.toContain('\x1b[2J');
    const frame = JSON.parse(json.stdout.trim());
    expect(frame.job.jobId).toBe(jobId);
    expect(frame.runs[0]).toMatchObject({ status: 'SUCCEEDED', httpStatus: 200 });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('NOT_FOUND');
    expect(badInterval.code).toBe(2);
  }, 60_000);

  it('keeps refreshing until Ctrl-C, then exits 0', async () => {
    const created = await api()('POST', '/v1/jobs', {
      target: { url: target.url('/live') },
      schedule: { type: 'interval', everySeconds: 3600 },
    });
    const bin = new URL('../../cli/bin/chronos.mjs', import.meta.url).pathname;
    const child = spawn(process.execPath, [bin, 'watch', created.body.jobId, '--interval', '1', '--json'], {
      env: { PATH: process.env.PATH, ...freshHome(), ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));

    // act: two refreshes, then Ctrl-C
    await eventually(
      async () => stdout.split('\n').filter(Boolean).length,
      (frames) => frames >= 2,
      20_000,
    );
    child.kill('SIGINT');

    expect(await exited).toBe(0);
    for (const line of stdout.trim().split('\n')) expect(JSON.parse(line).job.jobId).toBe(created.body.jobId);
  }, 60_000);
});
