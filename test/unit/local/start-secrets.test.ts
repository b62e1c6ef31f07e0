/**
 * The secrets `npm start` hands the runtime (functions/local/start-options.ts): the operator token
 * is new on each start without a data folder, and kept in the folder (owner-only) with one, so the
 * token printed before a restart still works after it.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { memorySecrets, prepareDataDir } from '#local/start-options';

const folders: string[] = [];
const folder = () => {
  const dir = mkdtempSync(join(tmpdir(), 'chronos-start-'));
  folders.push(dir);
  return join(dir, 'data');
};
afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the operator token of npm start', () => {
  it('is a new API-shaped token on each start without a data folder', () => {
    const first = memorySecrets();
    const second = memorySecrets();
    expect(first.adminToken).toMatch(/^chronos_[A-Za-z0-9_-]{43}$/);
    expect(second.adminToken).not.toBe(first.adminToken);
    // The key that seals secrets stays the runtime's own (one per process).
    expect(first.secretsLocalKey).toBeUndefined();
  });

  it('is kept in the data folder, readable by its owner only, and the same on the next start', () => {
    const dataDir = folder();
    const first = prepareDataDir(dataDir, {});
    const again = prepareDataDir(dataDir, {});

    expect(again).toEqual(first);
    expect(readFileSync(join(dataDir, 'operator-token'), 'utf8').trim()).toBe(first.adminToken);
    expect(statSync(join(dataDir, 'operator-token')).mode & 0o077).toBe(0);
    expect(statSync(join(dataDir, 'secrets-local-key')).mode & 0o077).toBe(0);
    // Another folder, another token.
    expect(prepareDataDir(folder(), {}).adminToken).not.toBe(first.adminToken);
  });

  it('makes a new operator token when the kept file was emptied, never an empty one', () => {
    const dataDir = folder();
    prepareDataDir(dataDir, {});
    writeFileSync(join(dataDir, 'operator-token'), '\n');
    const again = prepareDataDir(dataDir, {});
    expect(again.adminToken).toMatch(/^chronos_[A-Za-z0-9_-]{43}$/);
    expect(readFileSync(join(dataDir, 'operator-token'), 'utf8').trim()).toBe(again.adminToken);
  });

  it('keeps SECRETS_LOCAL_KEY winning over the kept key, and the operator token kept either way', () => {
    const dataDir = folder();
    const kept = prepareDataDir(dataDir, {});
    const overridden = prepareDataDir(dataDir, { SECRETS_LOCAL_KEY: 'from-the-environment' });
    expect(overridden).toEqual({ secretsLocalKey: 'from-the-environment', adminToken: kept.adminToken });
  });
});
