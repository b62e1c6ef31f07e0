/**
 * The async wiring asks for no more environment than its functions get (lib/): the scanner, the
 * job's cancel and the run's cancel have the runs and jobs tables but no tenants table, so what
 * they decide with must not need one; only the callback routes read the token keys from it. On one
 * local process every variable is set, so only this test would see a deployed 500.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ENV } from '#adapters/environment';

const saved = { ...process.env };
beforeEach(() => {
  vi.resetModules();
  process.env[ENV.jobsTable] = 'jobs';
  process.env[ENV.runsTable] = 'runs';
  delete process.env[ENV.tenantsTable];
});
afterEach(() => {
  process.env = { ...saved };
});

describe('the async wiring without a tenants table', () => {
  it('builds what a cancel and the deadline pass decide with', async () => {
    const { asyncRunDeps } = await import('#handlers/wiring');
    const deps = asyncRunDeps();
    expect(deps.store).toBeDefined();
    expect(deps).not.toHaveProperty('keys');
  });

  it('refuses, naming the variable, only what the callback routes need: the token keys', async () => {
    const { callbackDeps } = await import('#handlers/wiring');
    expect(() => callbackDeps()).toThrow(ENV.tenantsTable);
  });
});
