/**
 * `npm start -- --data <dir>`: stop and start again on the same folder, and the jobs, runs,
 * tenant, token and signing secret are still there; a run whose message was lost with the
 * in-memory SQS emulator is sent again at start, so it fires.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '#local/emulators/free-port';
import { startHttpTarget } from '../support/http-target.ts';
import { descendantsOf, eventually, isAlive, killAll, type NpmStart, spawnNpmStart } from '../support/npm-start.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'chronos-data-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Started {
  npm: NpmStart;
  tree: number[];
  api: string;
  token: string;
  signingSecret: string;
}

async function start(port: number): Promise<Started> {
  // DEBUG: the completion handler's line for each run (`run completed`) tells which runs it handled.
  const npm = spawnNpmStart(['--data', dataDir], {
    PORT: String(port),
    HOST: '127.0.0.1',
    POWERTOOLS_LOG_LEVEL: 'DEBUG',
  });
  await npm.waitFor(/Chronos is running[\s\S]*Ctrl-C/, 75_000);
  const banner = npm.output().slice(npm.output().indexOf('Chronos is running.'));
  return {
    npm,
    tree: descendantsOf(npm.pid),
    api: banner.match(/^ {2}API\s+(\S+)$/m)?.[1] as string,
    token: banner.match(/^ {2}Token\s+(\S+)/m)?.[1] as string,
    signingSecret: banner.match(/signing secret (whsec_\S+)/)?.[1] as string,
  };
}

async function stop({ npm, tree }: Started): Promise<void> {
  process.kill(npm.pid, 'SIGTERM');
  const stopped = await eventually(() => [npm.pid, ...tree].every((pid) => !isAlive(pid)), 15_000);
  killAll([npm.pid, ...tree]);
  expect(stopped, npm.output()).toBe(true);
}

async function createJob(chronos: Started, body: unknown): Promise<string> {
  const created = await fetch(`${chronos.api}/v1/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${chronos.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(created.status).toBe(201);
  return ((await created.json()) as { jobId: string }).jobId;
}

/** The completion handler's log line (DEBUG) for a run of `jobId`. */
const completedLine = (jobId: string) => new RegExp(`"message":"run completed".*"jobId":"${jobId}"`);

describe('npm start -- --data <dir>', () => {
  it('keeps the job, tenant, token and signing secret across a restart, and the run due meanwhile fires', {
    timeout: 150_000,
  }, async () => {
    const target = await startHttpTarget();
    const port = await freePort();
    let second: Started | undefined;
    const first = await start(port);
    try {
      expect(first.npm.output()).toMatch(new RegExp(`^ {2}Data\\s+kept in ${dataDir}$`, 'm'));
      // A job whose run finishes before the stop: the completion handler handles its record once.
      const doneFirst = await createJob(first, { target: { url: target.url('/now') }, schedule: { type: 'once' } });
      await target.waitForCalls('/now', 1, 30_000);
      await first.npm.waitFor(completedLine(doneFirst), 30_000);

      const due = Date.now() + 12_000;
      const jobId = await createJob(first, {
        target: { url: target.url('/kept') },
        schedule: { type: 'once', at: new Date(due).toISOString() },
      });
      // Its run is stored and its message queued in fauxqs, which forgets it on stop.
      await stop(first);
      expect(target.callsTo('/kept')).toHaveLength(0);
      // The key sealing the signing secrets is kept, readable by its owner only.
      expect(statSync(join(dataDir, 'secrets-local-key')).mode & 0o077).toBe(0);

      second = await start(port);
      expect(second.token).toBe(first.token);
      expect(second.signingSecret).toBe(first.signingSecret);
      const job = await fetch(`${second.api}/v1/jobs/${jobId}`, {
        headers: { authorization: `Bearer ${second.token}` },
      });
      expect(job.status).toBe(200);
      expect(((await job.json()) as { jobId: string }).jobId).toBe(jobId);

      // Without the resend at start, only the sweep would send it: a minute (its grace) after its
      // due time at the earliest. Resent at start, it comes at its due time (or at once, when the
      // restart took longer than that).
      const latest = due + 45_000;
      const [call] = await target.waitForCalls('/kept', 1, Math.max(5_000, latest - Date.now()));
      expect(call?.at).toBeGreaterThanOrEqual(due - 1000);
      expect(call?.at).toBeLessThan(latest);
      new Webhook(first.signingSecret).verify(call?.body ?? '', call?.headers as Record<string, string>);
      // The runs stream is read on from where the first run left it, not from its oldest record:
      // the run finished before the stop is not completed a second time.
      await second.npm.waitFor(completedLine(jobId), 30_000);
      expect(second.npm.output()).not.toMatch(completedLine(doneFirst));
    } finally {
      killAll([first.npm.pid, ...first.tree, ...(second ? [second.npm.pid, ...second.tree] : [])]);
      await target.close();
    }
  });
});
