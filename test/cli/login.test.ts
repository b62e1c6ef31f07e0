/**
 * `chronos login` and the profile: the token checked against the local runtime, kept in
 * $XDG_CONFIG_HOME/chronos/profile.json with mode 0600 (an older looser file tightened), used by
 * later commands, and overridden by CHRONOS_API_URL / CHRONOS_TOKEN; a refused token is not saved.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { freshHome, runCli } from './support/run-cli.ts';

let chronos: LocalChronos;

beforeAll(async () => {
  chronos = await startLocalChronos({ port: 0, scannerIntervalMs: 0, log: () => undefined });
}, 60_000);
afterAll(async () => {
  await chronos?.stop();
});

const profileOf = (home: { XDG_CONFIG_HOME: string }) => join(home.XDG_CONFIG_HOME, 'chronos', 'profile.json');

describe('chronos login', () => {
  it('keeps the URL and token in a 0600 profile that later commands use', async () => {
    const home = freshHome();

    const login = await runCli(['login', '--api-url', `${chronos.apiUrl}/`, '--token', chronos.token], home);
    const listed = await runCli(['jobs', 'list', '--json'], home);

    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain(`Logged in to ${chronos.apiUrl} (profile: ${profileOf(home)})`);
    expect(statSync(profileOf(home)).mode & 0o777).toBe(0o600);
    expect(statSync(join(home.XDG_CONFIG_HOME, 'chronos')).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(profileOf(home), 'utf8'))).toEqual({ apiUrl: chronos.apiUrl, token: chronos.token });
    expect(listed.code, listed.stderr).toBe(0);
    expect(Array.isArray(JSON.parse(listed.stdout))).toBe(true);
  });

  it('tightens an existing profile to 0600 when it rewrites it', async () => {
    const home = freshHome();
    mkdirSync(join(home.XDG_CONFIG_HOME, 'chronos'), { recursive: true });
    writeFileSync(profileOf(home), '{}', { mode: 0o644 });

    const login = await runCli(['login', '--api-url', chronos.apiUrl, '--token', chronos.token], home);

    expect(login.code, login.stderr).toBe(0);
    expect(statSync(profileOf(home)).mode & 0o777).toBe(0o600);
  });

  it('lets CHRONOS_API_URL and CHRONOS_TOKEN override the profile', async () => {
    const home = freshHome();
    await runCli(['login', '--api-url', chronos.apiUrl, '--token', chronos.token], home);

    const wrongToken = await runCli(['jobs', 'list'], { ...home, CHRONOS_TOKEN: 'not-a-token' });
    const wrongUrl = await runCli(['jobs', 'list'], { ...home, CHRONOS_API_URL: 'http://127.0.0.1:9' });

    expect(wrongToken.code).toBe(1);
    expect(wrongToken.stderr).toContain('UNAUTHORIZED');
    expect(wrongUrl.code).toBe(1);
    expect(wrongUrl.stderr).toContain('cannot reach the API');
  });

  it('saves nothing for a token the API refuses (exit 1), and needs its flags (exit 2)', async () => {
    const home = freshHome();

    const refused = await runCli(['login', '--api-url', chronos.apiUrl, '--token', 'not-a-token'], home);
    const noToken = await runCli(['login', '--api-url', chronos.apiUrl], home);
    const badUrl = await runCli(['login', '--api-url', 'localhost:3000', '--token', 'x'], home);
    const notLoggedIn = await runCli(['jobs', 'list'], home);

    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('UNAUTHORIZED');
    expect(existsSync(profileOf(home))).toBe(false);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('--token is required');
    expect(badUrl.code).toBe(2);
    expect(notLoggedIn.code).toBe(1);
    expect(notLoggedIn.stderr).toContain('not logged in');
  });
});
