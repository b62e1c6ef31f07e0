/**
 * `chronos workflows …` and `chronos workflow-runs …` as spawned processes against the local
 * runtime: a definition from a file or stdin sent as the API's body (read back through the API),
 * the tasks and their dependencies shown as a table, `trigger --wait` following a run to its end
 * (exit 1 when it FAILED), a run's tasks with attempt, HTTP status, error and skip reason, and the
 * wrong inputs: an unknown id (the API's 404), a file that cannot be read (named), a cycle (the
 * API's 400 naming its tasks).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { apiAs } from '../e2e/support/tenant-api.ts';
import { eventually, type HttpTarget, startHttpTarget } from '../support/http-target.ts';
import { runCli } from './support/run-cli.ts';

let chronos: LocalChronos;
let target: HttpTarget;
let env: Record<string, string>;
const dir = mkdtempSync(join(tmpdir(), 'chronos-workflows-'));

beforeAll(async () => {
  // Paths under /fail answer 500 (a task that fails), /slow takes 20 s (a task still in flight).
  target = await startHttpTarget((path) =>
    path.startsWith('/fail')
      ? { status: 500 }
      : path.startsWith('/slow')
        ? { status: 200, delayMs: 20_000 }
        : { status: 200 },
  );
  chronos = await startLocalChronos({ port: 0, scannerIntervalMs: 500, scanHorizonSeconds: 5, log: () => undefined });
  env = { CHRONOS_API_URL: chronos.apiUrl, CHRONOS_TOKEN: chronos.token, TZ: 'Europe/Berlin' };
}, 60_000);
afterAll(async () => {
  await chronos?.stop();
  await target?.close();
});

const chronosCli = (...args: string[]) => runCli(args, env);
const api = () => apiAs(chronos.apiUrl, chronos.token);

/** Writes `value` as JSON to a file of the test's folder; its path. */
function file(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}

/** extract → (clean, enrich) → load: the diamond, each task under `prefix` on the target. */
const diamond = (prefix: string, enrichPath = 'enrich') => ({
  name: `${prefix}-etl`,
  tasks: [
    { key: 'extract', target: { url: target.url(`/${prefix}/extract`) } },
    { key: 'clean', target: { url: target.url(`/${prefix}/clean`) }, dependsOn: ['extract'] },
    {
      key: 'enrich',
      target: { url: target.url(`/${enrichPath}/${prefix}`) },
      dependsOn: ['extract'],
      retry: { maxAttempts: 1 },
    },
    { key: 'load', target: { url: target.url(`/${prefix}/load`) }, dependsOn: ['clean', 'enrich'], input: 'upstream' },
  ],
});

describe('chronos workflows', () => {
  it('creates a workflow from a file, shows its tasks and their dependencies, and lists it', async () => {
    const created = await chronosCli('workflows', 'create', '--file', file('diamond.json', diamond('show')));
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^Created workflow wf[0-9A-Z]{26} \(ACTIVE, 4 tasks, next -\)$/m);
    const workflowId = /wf[0-9A-Z]{26}/.exec(created.stdout)?.[0] as string;
    const stored = (await api()('GET', `/v1/workflows/${workflowId}`)).body as { name: string; tasks: unknown[] };
    expect(stored.name).toBe('show-etl');
    expect(stored.tasks).toHaveLength(4);

    const shown = await chronosCli('workflows', 'get', workflowId);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^Schedule\s+trigger only$/m);
    const lines = shown.stdout.trimEnd().split('\n');
    const header = lines.findIndex((line) => line.startsWith('TASK'));
    expect(lines[header]).toMatch(/^TASK\s+AFTER\s+WHEN\s+TARGET\s+INPUT\s+ATTEMPTS\s+TIMEOUT$/);
    expect(lines.slice(header + 1)).toEqual([
      expect.stringMatching(/^extract\s+\(start\)\s+-\s+POST http:\S+\/show\/extract\s+-\s+3\s+30 s$/),
      expect.stringMatching(/^clean\s+extract\s+all_succeeded\s+POST \S+\/show\/clean\s+-\s+3\s+30 s$/),
      expect.stringMatching(/^enrich\s+extract\s+all_succeeded\s+POST \S+\/enrich\/show\s+-\s+1\s+30 s$/),
      expect.stringMatching(/^load\s+clean, enrich\s+all_succeeded\s+POST \S+\/show\/load\s+upstream\s+3\s+30 s$/),
    ]);

    const listed = await chronosCli('workflows', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+STATUS\s+VERSION\s+TASKS\s+SCHEDULE\s+NEXT$/);
    expect(listed.stdout).toMatch(
      new RegExp(`^${workflowId}\\s+show-etl\\s+ACTIVE\\s+1\\s+4\\s+trigger only\\s+-$`, 'm'),
    );
    const json = JSON.parse((await chronosCli('workflows', 'list', '--json')).stdout) as { workflowId: string }[];
    expect(json.map((w) => w.workflowId)).toContain(workflowId);
  });

  it('reads a definition from stdin, edits it with If-Match from a file, pauses, resumes and deletes it', async () => {
    const created = await runCli(
      ['workflows', 'create', '--file', '-', '--json'],
      env,
      JSON.stringify(diamond('stdin')),
    );
    expect(created.code, created.stderr).toBe(0);
    const { workflowId, version } = JSON.parse(created.stdout) as { workflowId: string; version: number };
    expect(version).toBe(1);

    const edits = file('edit.json', { name: 'renamed', tasks: diamond('stdin').tasks.slice(0, 2) });
    const edited = await chronosCli('workflows', 'edit', workflowId, '--file', edits);
    expect(edited.code, edited.stderr).toBe(0);
    expect(edited.stdout.trim()).toBe(`Changed workflow ${workflowId} (version 2)`);
    const stored = (await api()('GET', `/v1/workflows/${workflowId}`)).body as { name: string; tasks: unknown[] };
    expect(stored).toMatchObject({ name: 'renamed', version: 2 });
    expect(stored.tasks).toHaveLength(2);

    expect((await chronosCli('workflows', 'pause', workflowId)).stdout.trim()).toBe(`Workflow ${workflowId} is PAUSED`);
    const refused = await chronosCli('workflows', 'trigger', workflowId);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^chronos: CONFLICT: /);
    expect((await chronosCli('workflows', 'resume', workflowId)).stdout.trim()).toBe(
      `Workflow ${workflowId} is ACTIVE`,
    );
    expect((await chronosCli('workflows', 'delete', workflowId)).stdout.trim()).toBe(
      `Workflow ${workflowId} is CANCELLED`,
    );
  });

  it('triggers with --wait until the run ends: each task’s final status, exit 0 when it SUCCEEDED', async () => {
    const workflowId = (
      await api()('POST', '/v1/workflows', diamond('ok')).then((r) => r.body as { workflowId: string })
    ).workflowId;
    const waited = await chronosCli('workflows', 'trigger', workflowId, '--wait', '--idempotency-key', 'cli-ok-1');
    expect(waited.code, waited.stderr).toBe(0);
    const lines = waited.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^Triggered workflow run wf[0-9A-Z]{26}_\d{13}, waiting for it to end…$/);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^TASK\s+STATUS\s+ATTEMPT\s+HTTP\s+ERROR\s+SKIPPED REASON$/),
      expect.stringMatching(/^extract\s+SUCCEEDED\s+1\s+200\s+-\s+-$/),
      expect.stringMatching(/^clean\s+SUCCEEDED\s+1\s+200\s+-\s+-$/),
      expect.stringMatching(/^enrich\s+SUCCEEDED\s+1\s+200\s+-\s+-$/),
      expect.stringMatching(/^load\s+SUCCEEDED\s+1\s+200\s+-\s+-$/),
      '',
      expect.stringMatching(/^Workflow run wf[0-9A-Z]{26}_\d{13} SUCCEEDED$/),
    ]);
    // The same key answers the same run: no second run is listed.
    const again = await chronosCli('workflows', 'trigger', workflowId, '--idempotency-key', 'cli-ok-1', '--json');
    expect(JSON.parse(again.stdout).workflowRunId).toBe(/(wf[0-9A-Z]{26}_\d{13})/.exec(lines[0] ?? '')?.[1]);
    const runs = await chronosCli('workflows', 'runs', workflowId);
    expect(runs.code, runs.stderr).toBe(0);
    const runLines = runs.stdout.trimEnd().split('\n');
    expect(runLines[0]).toMatch(/^WORKFLOW RUN\s+SCHEDULED\s+STATUS\s+VERSION\s+ROUND\s+BY\s+COMPLETED\s+TASKS$/);
    expect(runLines.slice(1)).toEqual([
      expect.stringMatching(/^wf\w+_\d{13}\s+.+\s+SUCCEEDED\s+1\s+0\s+trigger\s+.+\s+SUCCEEDED 4$/),
    ]);
  }, 60_000);

  it('exits 1 when the waited run FAILED; workflow-runs get shows each task, retry starts a round, cancel ends it', async () => {
    const workflowId = (
      await api()('POST', '/v1/workflows', diamond('bad', 'fail')).then((r) => r.body as { workflowId: string })
    ).workflowId;
    const waited = await chronosCli('workflows', 'trigger', workflowId, '--wait', '--json');
    expect(waited.code).toBe(1);
    const run = JSON.parse(waited.stdout) as { workflowRunId: string; status: string };
    expect(run.status).toBe('FAILED');
    expect(waited.stderr.trim()).toBe(`chronos: workflow run ${run.workflowRunId} ended FAILED`);

    const shown = await chronosCli('workflow-runs', 'get', run.workflowRunId);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^Status\s+FAILED$/m);
    expect(shown.stdout).toMatch(/^Round\s+0$/m);
    expect(shown.stdout).toMatch(/^extract\s+SUCCEEDED\s+1\s+200\s+-\s+-$/m);
    expect(shown.stdout).toMatch(/^enrich\s+FAILED\s+1\s+500\s+http_5xx\s+-$/m);
    expect(shown.stdout).toMatch(/^load\s+SKIPPED\s+-\s+-\s+-\s+\S.*$/m);

    const retried = await chronosCli('workflow-runs', 'retry', run.workflowRunId);
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stdout.trim()).toBe(`Workflow run ${run.workflowRunId}: round 1 started (RUNNING)`);
    // The retried enrich fails again at once; the run ends FAILED again, and a cancel of an ended run is refused.
    await eventually(
      async () => (await api()('GET', `/v1/workflow-runs/${run.workflowRunId}`)).body as { status: string },
      (r) => r.status === 'FAILED',
      20_000,
    );
    const refused = await chronosCli('workflow-runs', 'cancel', run.workflowRunId);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^chronos: CONFLICT: /);
  }, 60_000);

  it('cancels a run whose task is still in flight', async () => {
    const workflowId = (
      await api()('POST', '/v1/workflows', {
        tasks: [
          { key: 'slow', target: { url: target.url('/slow/cancel') } },
          { key: 'after', target: { url: target.url('/cancel/after') }, dependsOn: ['slow'] },
        ],
      }).then((r) => r.body as { workflowId: string })
    ).workflowId;
    const triggered = await chronosCli('workflows', 'trigger', workflowId);
    expect(triggered.code, triggered.stderr).toBe(0);
    const workflowRunId = /wf[0-9A-Z]{26}_\d{13}/.exec(triggered.stdout)?.[0] as string;
    expect(triggered.stdout.trim()).toBe(`Triggered workflow run ${workflowRunId} (RUNNING)`);
    const cancelled = await chronosCli('workflow-runs', 'cancel', workflowRunId);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout.trim()).toBe(`Workflow run ${workflowRunId} is CANCELLED`);
    const shown = await chronosCli('workflow-runs', 'get', workflowRunId);
    expect(shown.stdout).toMatch(/^after\s+CANCELLED\s+/m);
  });
});

describe('wrong input', () => {
  it("answers an unknown workflow or workflow run with the API's 404", async () => {
    for (const args of [
      ['workflows', 'get', 'wf01JD2Q8Z4W6X7Y8Z9A0B1C2D3E'],
      ['workflows', 'trigger', 'wf01JD2Q8Z4W6X7Y8Z9A0B1C2D3E'],
      ['workflows', 'edit', 'wf01JD2Q8Z4W6X7Y8Z9A0B1C2D3E', '--file', file('name.json', { name: 'x' })],
      ['workflow-runs', 'get', 'wf01JD2Q8Z4W6X7Y8Z9A0B1C2D3E_1780000000000'],
      ['workflow-runs', 'retry', 'wf01JD2Q8Z4W6X7Y8Z9A0B1C2D3E_1780000000000'],
    ]) {
      const answered = await chronosCli(...args);
      expect(answered.code, args.join(' ')).toBe(1);
      expect(answered.stderr, args.join(' ')).toMatch(/^chronos: NOT_FOUND: /);
      expect(answered.stdout).toBe('');
    }
  });

  it('names a file that cannot be read or is no JSON object, before anything is sent', async () => {
    const count = async () =>
      ((await api()('GET', '/v1/workflows?limit=100')).body as { items: unknown[] }).items.length;
    const before = await count();
    const missing = join(dir, 'missing.json');
    const absent = await chronosCli('workflows', 'create', '--file', missing);
    expect(absent.code).toBe(2);
    expect(absent.stderr).toContain(`chronos: cannot read ${missing}: ENOENT`);
    const broken = file('broken.json', '{"tasks": [');
    const notJson = await chronosCli('workflows', 'create', '--file', broken);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(new RegExp(`^chronos: ${broken} is not JSON: `));
    const list = await chronosCli('workflows', 'create', '--file', file('list.json', []));
    expect(list.code).toBe(2);
    expect(list.stderr).toContain('must hold a JSON object');
    expect(await count()).toBe(before);
    const noFile = await chronosCli('workflows', 'create');
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toContain("required option '--file <path>' not specified");
  });

  it("prints the API's 400 naming the tasks of a cycle, and a bad field", async () => {
    const cycle = file('cycle.json', {
      tasks: [
        { key: 'root', target: { url: target.url('/c/root') } },
        { key: 'alpha', target: { url: target.url('/c/a') }, dependsOn: ['root', 'gamma'] },
        { key: 'beta', target: { url: target.url('/c/b') }, dependsOn: ['alpha'] },
        { key: 'gamma', target: { url: target.url('/c/g') }, dependsOn: ['beta'] },
      ],
    });
    const refused = await chronosCli('workflows', 'create', '--file', cycle);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^chronos: VALIDATION_FAILED: /);
    const cycleLine = refused.stderr.split('\n').find((line) => /cycle/i.test(line)) ?? '';
    for (const key of ['alpha', 'beta', 'gamma']) expect(cycleLine).toContain(key);
    expect(cycleLine).not.toContain('root');

    const badUrl = file('bad-url.json', { tasks: [{ key: 'only', target: { url: 'ftp://x' } }] });
    const named = await chronosCli('workflows', 'create', '--file', badUrl, '--json');
    expect(named.code).toBe(1);
    const error = JSON.parse(named.stderr).error as { status: number; details: { field: string }[] };
    expect(error.status).toBe(400);
    expect(error.details.map((d) => d.field)).toContain('tasks.0.target.url');
  });
});
