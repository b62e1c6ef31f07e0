/**
 * `chronos jobs …` and `chronos schedules preview` as spawned processes against the local runtime:
 * what they send (read back through the API), their tables with times in the local zone (TZ),
 * `--json` for scripts, and the exit codes: 0, 1 for an error the API answered (naming its field),
 * 2 for a command line that cannot be run.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { apiAs } from '../e2e/support/tenant-api.ts';
import { type HttpTarget, startHttpTarget } from '../support/http-target.ts';
import { runCli } from './support/run-cli.ts';

let chronos: LocalChronos;
let target: HttpTarget;
let env: Record<string, string>;

beforeAll(async () => {
  target = await startHttpTarget();
  chronos = await startLocalChronos({ port: 0, scannerIntervalMs: 500, scanHorizonSeconds: 5, log: () => undefined });
  env = { CHRONOS_API_URL: chronos.apiUrl, CHRONOS_TOKEN: chronos.token, TZ: 'Europe/Berlin' };
}, 60_000);
afterAll(async () => {
  await chronos?.stop();
  await target?.close();
});

const chronosCli = (...args: string[]) => runCli(args, env);
const api = () => apiAs(chronos.apiUrl, chronos.token);

describe('chronos jobs', () => {
  it('creates a cron job in a time zone with a body from a file, and shows it in local time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chronos-body-'));
    writeFileSync(join(dir, 'body.json'), '{"report":"daily","lang":"de"}');

    const created = await chronosCli(
      'jobs',
      'create',
      '--name',
      'daily-report',
      '--cron',
      '0 9 * * 1-5',
      '--tz',
      'Europe/Berlin',
      '--url',
      target.url('/report'),
      '--body',
      `@${join(dir, 'body.json')}`,
      '--header',
      'X-Team: reports',
      '--timeout',
      '20',
      '--retry-attempts',
      '5',
      '--retry-on',
      '404,409',
      '--json',
    );
    expect(created.code, created.stderr).toBe(0);
    const job = JSON.parse(created.stdout);
    const shown = await chronosCli('jobs', 'get', job.jobId);
    const stored = (await api()('GET', `/v1/jobs/${job.jobId}`)).body;

    expect(stored).toMatchObject({
      name: 'daily-report',
      schedule: { type: 'cron', expression: '0 9 * * 1-5', timezone: 'Europe/Berlin' },
      target: {
        url: target.url('/report'),
        method: 'POST',
        headers: { 'X-Team': 'reports', 'content-type': 'application/json' },
        body: '{"report":"daily","lang":"de"}',
      },
      timeoutSeconds: 20,
    });
    expect(shown.code, shown.stderr).toBe(0);
    // 09:00 in Berlin, whatever the date: CET or CEST, shown in TZ=Europe/Berlin.
    expect(shown.stdout).toMatch(/^Next\s+\d{4}-\d\d-\d\d 09:00:00 CES?T$/m);
    expect(shown.stdout).toMatch(/^Schedule\s+cron "0 9 \* \* 1-5" Europe\/Berlin$/m);
    expect(shown.stdout).toMatch(/^Upcoming\s+\d{4}-\d\d-\d\d 09:00:00 CES?T$/m);
    const inTokyo = await runCli(['jobs', 'get', job.jobId], { ...env, TZ: 'Asia/Tokyo' });
    expect(inTokyo.stdout).toMatch(/^Next\s+\d{4}-\d\d-\d\d 1[67]:00:00 GMT\+9$/m);
  });

  it('lists jobs as an aligned table, and as JSON', async () => {
    for (const name of ['list-a', 'list-bb']) {
      const made = await chronosCli('jobs', 'create', '--name', name, '--every', '1h', '--url', target.url('/l'));
      expect(made.code, made.stderr).toBe(0);
      expect(made.stdout).toMatch(/^Created job [0-9A-Z]{26} \(ACTIVE, next /);
    }

    const table = await chronosCli('jobs', 'list', '--name', 'list-');
    const json = await chronosCli('jobs', 'list', '--name', 'list-', '--json');

    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^ID\s+NAME\s+STATUS\s+SCHEDULE\s+NEXT\s+LAST RUN$/);
    // Aligned: every column starts at the same offset on every line.
    const statusAt = lines[0]?.indexOf('STATUS');
    for (const line of lines.slice(1)) expect(line.indexOf('ACTIVE')).toBe(statusAt);
    expect(lines[2]).toContain('every 1h');
    expect(JSON.parse(json.stdout).map((j: { name: string }) => j.name)).toEqual(['list-a', 'list-bb']);
  });

  it('edits, pauses, resumes, triggers, lists runs and cancels a job', async () => {
    const made = JSON.parse(
      (await chronosCli('jobs', 'create', '--every', '1d', '--url', target.url('/flow'), '--json')).stdout,
    );
    const id = made.jobId as string;

    const edited = await chronosCli('jobs', 'edit', id, '--name', 'renamed', '--every', '12h', '--json');
    const paused = await chronosCli('jobs', 'pause', id);
    const resumed = await chronosCli('jobs', 'resume', id, '--json');
    const triggered = await chronosCli('jobs', 'trigger', id, '--json');
    await target.waitForCalls('/flow', 2, 20_000);
    const runs = await chronosCli('jobs', 'runs', id, '--json');
    const runsTable = await chronosCli('jobs', 'runs', id);
    const cancelled = await chronosCli('jobs', 'cancel', id);

    expect(JSON.parse(edited.stdout)).toMatchObject({ name: 'renamed', schedule: { everySeconds: 43_200 } });
    expect(paused.stdout.trim()).toBe(`Job ${id} is PAUSED`);
    expect(JSON.parse(resumed.stdout).status).toBe('ACTIVE');
    expect(JSON.parse(triggered.stdout).runId).toMatch(new RegExp(`^${id}_`));
    expect(JSON.parse(runs.stdout).length).toBeGreaterThanOrEqual(1);
    expect(runsTable.stdout).toMatch(/^RUN\s+SCHEDULED\s+ATTEMPT\s+STATUS\s+HTTP/);
    expect(runsTable.stdout).toMatch(/CE(S)?T\s+1\s+(SUCCEEDED|RUNNING|QUEUED)/);
    expect(cancelled.stdout.trim()).toBe(`Job ${id} is CANCELLED`);
    expect((await api()('GET', `/v1/jobs/${id}`)).body.status).toBe('CANCELLED');
  }, 60_000);

  it('edits the target of a job with secret headers only when they are given again', async () => {
    const made = await chronosCli(
      'jobs',
      'create',
      '--every',
      '1d',
      '--url',
      target.url('/sealed'),
      '--secret-header',
      'Authorization: Bearer s3cret',
      '--json',
    );
    const id = JSON.parse(made.stdout).jobId as string;

    const refused = await chronosCli('jobs', 'edit', id, '--url', target.url('/sealed-2'));
    const renamed = await chronosCli('jobs', 'edit', id, '--name', 'kept-secret', '--json');
    const moved = await chronosCli(
      'jobs',
      'edit',
      id,
      '--url',
      target.url('/sealed-2'),
      '--secret-header',
      'Authorization: Bearer n3w',
      '--json',
    );

    expect(made.stdout).not.toContain('s3cret');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--secret-header');
    expect(JSON.parse(renamed.stdout)).toMatchObject({
      name: 'kept-secret',
      target: { secretHeaders: { Authorization: '***' } },
    });
    expect(moved.code, moved.stderr).toBe(0);
    expect(JSON.parse(moved.stdout).target).toMatchObject({
      url: target.url('/sealed-2'),
      secretHeaders: { Authorization: '***' },
    });
  });

  it('makes a job async with --async and its settings, edits them, makes it synchronous again with --sync', async () => {
    const created = await chronosCli(
      'jobs',
      'create',
      '--every',
      '3600',
      '--url',
      target.url('/export'),
      '--async',
      '--heartbeat-timeout',
      '30',
      '--json',
    );
    expect(created.code, created.stderr).toBe(0);
    const { jobId } = JSON.parse(created.stdout);
    const read = async () => (await api()('GET', `/v1/jobs/${jobId}`)).body;
    expect((await read()).async).toEqual({
      heartbeatTimeoutSeconds: 30,
      maxDurationSeconds: 3600,
      cancelGraceSeconds: 30,
    });

    expect((await chronosCli('jobs', 'edit', jobId, '--max-duration', '7200')).code).toBe(0);
    expect((await read()).async).toEqual({
      heartbeatTimeoutSeconds: 30,
      maxDurationSeconds: 7200,
      cancelGraceSeconds: 30,
    });
    const tooShort = await chronosCli('jobs', 'edit', jobId, '--heartbeat-timeout', '2');
    expect(tooShort.code).toBe(1);
    expect(tooShort.stderr).toContain('async.heartbeatTimeoutSeconds');
    expect((await chronosCli('jobs', 'edit', jobId, '--sync')).code).toBe(0);
    expect((await read()).async ?? null).toBeNull();
  });

  it('exits 1 naming the field the API named, and prints the API error as JSON with --json', async () => {
    const badZone = await chronosCli(
      'jobs',
      'create',
      '--cron',
      '0 9 * * *',
      '--tz',
      'Mars/Olympus',
      '--url',
      target.url('/x'),
    );
    const badJson = await chronosCli('jobs', 'create', '--every', '0', '--url', target.url('/x'), '--json');
    const missing = await chronosCli('jobs', 'get', '01M8000000000000000000000Z');
    const before = (await api()('GET', '/v1/jobs?limit=100')).body.items.length;

    expect(badZone.code).toBe(1);
    expect(badZone.stderr).toContain("schedule.timezone: unknown time zone 'Mars/Olympus'");
    expect(badJson.code).toBe(1);
    expect(badJson.stdout).toBe('');
    const error = JSON.parse(badJson.stderr).error;
    expect(error).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(error.details.map((d: { field: string }) => d.field)).toContain('schedule.everySeconds');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('NOT_FOUND');
    expect((await api()('GET', '/v1/jobs?limit=100')).body.items.length).toBe(before);
  });

  it('exits 2 for a command line it cannot run, before calling the API', async () => {
    const runs = await Promise.all([
      chronosCli('jobs', 'create', '--url', target.url('/x')),
      chronosCli('jobs', 'create', '--every', 'soon', '--url', target.url('/x')),
      chronosCli('jobs', 'create', '--every', '5m', '--cron', '* * * * *', '--url', target.url('/x')),
      chronosCli('jobs', 'create', '--every', '5m'),
      chronosCli('jobs', 'create', '--every', '5m', '--url', target.url('/x'), '--method', 'FETCH'),
      chronosCli('jobs', 'create', '--every', '5m', '--url', target.url('/x'), '--timeout', '3e1'),
      chronosCli('jobs', 'frobnicate'),
      chronosCli('jobs', 'get'),
      chronosCli('jobs', 'edit', '01M8000000000000000000000Z'),
      chronosCli('jobs'),
      chronosCli(),
    ]);
    const help = await chronosCli('jobs', 'create', '--help');

    for (const run of runs) expect(run.code, run.stderr).toBe(2);
    expect(runs[0]?.stderr).toContain('a schedule is required');
    expect(runs[1]?.stderr).toContain('must be a duration');
    expect(target.callsTo('/x')).toHaveLength(0);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--cron <expression>');
  });
});

describe('chronos schedules preview', () => {
  it('lists a Berlin cron across the change to summer time, in local time and as JSON', async () => {
    const args = ['schedules', 'preview', '--cron', '30 2 * * *', '--tz', 'Europe/Berlin'];
    const window = ['--start-at', '2036-03-29T00:00:00+01:00', '--count', '3'];

    const human = await chronosCli(...args, ...window);
    const json = await chronosCli(...args, ...window, '--json');
    const wrong = await chronosCli('schedules', 'preview', '--cron', '30 2 * *', '--tz', 'Europe/Berlin');

    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout.trim().split('\n')).toEqual([
      '2036-03-29 02:30:00 CET',
      '2036-03-30 03:00:00 CEST',
      '2036-03-31 02:30:00 CEST',
    ]);
    expect(JSON.parse(json.stdout)).toEqual({
      occurrences: ['2036-03-29T01:30:00.000Z', '2036-03-30T01:00:00.000Z', '2036-03-31T00:30:00.000Z'],
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('schedule.expression: must have 5 fields');
  });
});
