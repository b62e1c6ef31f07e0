import { afterEach, describe, expect, it } from 'vitest';
import { ENV } from '#adapters/environment';
import { releaseSpreadEnvironment, releaseSpreadFromEnv } from '#adapters/release-spread-from-env';
import { NO_SPREAD } from '#core/release-spread';

const NAMES = [ENV.dispatchLeadMs, ENV.dispatchReadyPerSecond, ENV.dispatchMaxLeadMs];
const setEnv = (vars: Record<string, string>) => Object.assign(process.env, vars);
afterEach(() => {
  for (const name of NAMES) delete process.env[name];
});

describe('early release in the environment', () => {
  it('reads back what the stack and the local runtime write', () => {
    const spread = { baseLeadMs: 1_000, readyPerSecond: 150, maxLeadMs: 8_000 };
    setEnv(releaseSpreadEnvironment(spread));
    expect(releaseSpreadFromEnv()).toEqual(spread);
  });

  it('keeps an unbounded ready rate and a lead of 0 (a spread without a base lead)', () => {
    const spread = { baseLeadMs: 0, readyPerSecond: Number.POSITIVE_INFINITY, maxLeadMs: 4_000 };
    setEnv(releaseSpreadEnvironment(spread));
    expect(releaseSpreadFromEnv()).toEqual(spread);
  });

  it('is off without variables, and writes none when unset', () => {
    expect(releaseSpreadEnvironment(undefined)).toEqual({});
    expect(releaseSpreadFromEnv()).toEqual(NO_SPREAD);
  });

  it('refuses a value that is not a whole number of milliseconds', () => {
    setEnv({ [ENV.dispatchLeadMs]: '-5' });
    expect(() => releaseSpreadFromEnv()).toThrow(/DISPATCH_LEAD_MS must be an integer of at least 0/);
  });
});
