import { describe, expect, it } from 'vitest';
import { ValidationError } from '#core/errors';
import { admitNewJob } from '#core/tenants/admit-job';
import { QuotaExceededError, RateLimitedError } from '#core/tenants/quota-errors';
import { DEFAULT_QUOTAS } from '#core/tenants/quotas';

function deps(options: { refuse?: 'rate' | 'quota' } = {}) {
  const calls: string[] = [];
  return {
    calls,
    deps: {
      admissions: {
        admit: async (_tenantId: string, limits: { perSecond: number; burst: number }, max: number) => {
          calls.push(`admit ${limits.perSecond}/s burst ${limits.burst} max ${max}`);
          if (options.refuse === 'rate')
            return { admitted: false as const, reason: 'rate' as const, retryAfterSeconds: 3 };
          if (options.refuse === 'quota') return { admitted: false as const, reason: 'quota' as const };
          return { admitted: true as const };
        },
        release: async () => {
          calls.push('release');
        },
      },
    },
  };
}

const ADMIT = `admit ${DEFAULT_QUOTAS.createsPerSecond}/s burst ${DEFAULT_QUOTAS.createBurst} max ${DEFAULT_QUOTAS.maxActiveJobs}`;

const subject = {
  target: { url: 'https://x.example', method: 'POST' as const, headers: {} },
  schedule: { type: 'interval' as const, everySeconds: 60, startAt: 0 },
};

describe('admitting a new job', () => {
  it('checks the body quotas before taking anything, so a 400 spends no token', async () => {
    const { deps: d, calls } = deps();
    const tooOften = { ...subject, schedule: { ...subject.schedule, everySeconds: 1 } };

    await expect(admitNewJob(d, 't', tooOften, { ...DEFAULT_QUOTAS, minIntervalSeconds: 5 }, 0)).rejects.toBeInstanceOf(
      ValidationError,
    );
    expect(calls).toEqual([]);
  });

  it('answers an empty bucket with its retry delay, asking with the tenant’s quotas', async () => {
    const { deps: d, calls } = deps({ refuse: 'rate' });
    const refusal = admitNewJob(d, 't', subject, DEFAULT_QUOTAS, 0);

    await expect(refusal).rejects.toBeInstanceOf(RateLimitedError);
    await expect(refusal).rejects.toMatchObject({ retryAfterSeconds: 3 });
    expect(calls).toEqual([ADMIT]);
  });

  it('refuses a tenant at its active-job quota, and gives a reservation back on request', async () => {
    const full = deps({ refuse: 'quota' });
    await expect(admitNewJob(full.deps, 't', subject, DEFAULT_QUOTAS, 0)).rejects.toBeInstanceOf(QuotaExceededError);

    const ok = deps();
    const admission = await admitNewJob(ok.deps, 't', subject, DEFAULT_QUOTAS, 0);
    await admission.release();
    expect(ok.calls).toEqual([ADMIT, 'release']);
  });

  it('keeps the admission of a job that was stored: a failure after that gives nothing back', async () => {
    const { deps: d, calls } = deps();
    const admission = await admitNewJob(d, 't', subject, DEFAULT_QUOTAS, 0);
    admission.stored();
    await admission.release();
    expect(calls).toEqual([ADMIT]);
  });
});
