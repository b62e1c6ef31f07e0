/**
 * When a job's page reads the job again (console/src/api/polling.ts): a one-time job whose run has
 * just ended may still read ACTIVE, as the completion handler finishes it a moment later; its page
 * must keep reading it until it says so, while a job that can no longer change is not read again.
 */
import { describe, expect, it } from 'vitest';
import type { Job } from '../../client/src/index.ts';
import { ACTIVE_JOB_MS, jobRefetchMs, MOVING_MS, SETTLING_MS } from '../src/api/polling.ts';

const AT = Date.parse('2026-12-07T10:00:00.000Z');
const job = (patch: Partial<Job>): Job =>
  ({
    jobId: '01JD2Q8Z4W6X7Y8Z9A0B1C2D3E',
    status: 'ACTIVE',
    schedule: { type: 'once', at: new Date(AT).toISOString() },
    createdAt: new Date(AT - 60_000).toISOString(),
    ...patch,
  }) as unknown as Job;

describe('how often a job page reads its job', () => {
  it('follows a one-time job closely from its time until it settles, then slowly', () => {
    expect(jobRefetchMs(job({}), AT - 5_000)).toBe(ACTIVE_JOB_MS);
    expect(jobRefetchMs(job({}), AT)).toBe(MOVING_MS);
    expect(jobRefetchMs(job({}), AT + SETTLING_MS - 1)).toBe(MOVING_MS);
    // A retry after a long backoff: still active, followed slowly.
    expect(jobRefetchMs(job({}), AT + SETTLING_MS)).toBe(ACTIVE_JOB_MS);
  });

  it('times a one-time job without `at` (run now) from its creation', () => {
    const now = job({ schedule: { type: 'once', at: null } as Job['schedule'] });
    expect(jobRefetchMs(now, AT - 60_000 + 1_000)).toBe(MOVING_MS);
  });

  it('reads an active recurring job slowly, and stops for a job that can no longer change by itself', () => {
    const recurring = job({ schedule: { type: 'interval', everySeconds: 60 } as Job['schedule'] });
    expect(jobRefetchMs(recurring, AT)).toBe(ACTIVE_JOB_MS);
    for (const status of ['PAUSED', 'COMPLETED', 'FAILED', 'CANCELLED'] as Job['status'][])
      expect(jobRefetchMs(job({ status }), AT), status).toBe(false);
    expect(jobRefetchMs(undefined, AT)).toBe(false);
  });
});
