import { describe, expect, it } from 'vitest';
import { ValidationError } from '#core/errors';
import { admitNewJob } from '#core/tenants/admit-job';
import { QuotaExceededError, RateLimitedError } from '#core/tenants/quota-errors';
import { DEFAULT_QUOTAS } from '#core/tenants/quotas';

function deps(options: { bucket?: boolean; room?: boolean } = {}) {
  const calls: string[] = [];
  return {
    calls,
    deps: {
      rateLimiter: {
        take: async () => {
          calls.push('take');
          return options.bucket === false
            ? { allowed: false as const, retryAfterSeconds: 3 }
            : { allowed: true as const };
        },
      },
      activeJobs: {
        reserve: async () => {
          calls.push('reserve');
          return options.room !== false;
        },
        release: async () => {
          calls.push('release');
        },
      },
    },
  };
}

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

  it('answers an empty bucket with its retry delay and reserves nothing', async () => {
    const { deps: d, calls } = deps({ bucket: false });
    const refusal = admitNewJob(d, 't', subject, DEFAULT_QUOTAS, 0);

    await expect(refusal).rejects.toBeInstanceOf(RateLimitedError);
    await expect(refusal).rejects.toMatchObject({ retryAfterSeconds: 3 });
    expect(calls).toEqual(['take']);
  });

  it('refuses a tenant at its active-job quota, and gives a reservation back on request', async () => {
    const full = deps({ room: false });
    await expect(admitNewJob(full.deps, 't', subject, DEFAULT_QUOTAS, 0)).rejects.toBeInstanceOf(QuotaExceededError);

    const ok = deps();
    const admission = await admitNewJob(ok.deps, 't', subject, DEFAULT_QUOTAS, 0);
    await admission.release();
    expect(ok.calls).toEqual(['take', 'reserve', 'release']);
  });
});
