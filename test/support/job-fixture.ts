/**
 * A stored job for tests that need one without going through create: ACTIVE, one-time at `at`,
 * POSTing to https://example.com/hook with no headers, three attempts of backoff 1 s … 300 s,
 * at-least-once, 10 s timeout, one occurrence materialized. Tests override what they look at.
 */
import type { Job } from '#core/model';
import type { StoredJob } from '#core/ports';

export function jobFixture(at: number, overrides: Partial<Job> = {}): Job {
  return {
    tenantId: 't',
    jobId: 'J1',
    target: { url: 'https://example.com/hook', method: 'POST', headers: {} },
    schedule: { type: 'once', at },
    policies: { misfire: 'fire_once', overlap: 'allow' },
    retry: { maxAttempts: 3, initialDelaySeconds: 1, maxDelaySeconds: 300, multiplier: 2 },
    delivery: 'at-least-once',
    timeoutSeconds: 10,
    status: 'ACTIVE',
    version: 1,
    createdAt: at - 60_000,
    updatedAt: at - 60_000,
    occurrenceCount: 1,
    ...overrides,
  };
}

/** A stored time zone the runtime cannot resolve: planning a job on it throws, whatever the edge accepts today. */
export const RETIRED_ZONE = 'Mars/Olympus_Mons';

/**
 * A job as old data may leave it, due at `now` in `dueShard`: every minute in a time zone the
 * runtime's tz database no longer knows (zones are renamed and retired), so it cannot be planned.
 */
export function unplannableJobFixture(now: number, overrides: Partial<StoredJob> = {}): StoredJob {
  return {
    ...jobFixture(now, {
      schedule: { type: 'cron', expression: '* * * * *', timezone: RETIRED_ZONE, startAt: now },
      retry: { maxAttempts: 1, initialDelaySeconds: 1, maxDelaySeconds: 1, multiplier: 1 },
      createdAt: now - 1_000,
      updatedAt: now - 1_000,
      occurrenceCount: 0,
      nextFireAt: now,
      dueShard: 'due#00',
    }),
    ...overrides,
  };
}
