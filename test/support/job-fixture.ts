/**
 * A stored job for tests that need one without going through create: ACTIVE, one-time at `at`,
 * POSTing to https://example.com/hook with no headers, three attempts of backoff 1 s … 300 s,
 * at-least-once, 10 s timeout, one occurrence materialized. Tests override what they look at.
 */
import type { Job } from '#core/model';

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
