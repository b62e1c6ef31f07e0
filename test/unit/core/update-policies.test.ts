/**
 * PATCH can change a job's retry policy, delivery and onFailure URL with creation's rules
 * (job-input.ts), and the job view shows all three as they are in effect.
 */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '#core/errors';
import { parseCreateJob } from '#core/job-input';
import { DEFAULT_RETRY_POLICY } from '#core/retry-policy';
import { parseUpdateJob } from '#core/update-input';
import { updateJob } from '#core/use-cases/update-job';
import { jobView } from '#core/views';
import { every, NOW, setup, TENANT } from './use-cases/manage-fixtures.ts';

const change = (input: Record<string, unknown>) => parseUpdateJob(input as never, NOW);

/** The fields of every problem a PATCH body has, in the order found. */
function problemFieldsOf(input: Record<string, unknown>): string[] {
  try {
    change(input);
  } catch (error) {
    if (error instanceof ValidationError) return error.details.map((detail) => detail.field);
    throw error;
  }
  return [];
}

describe('parsing retry, delivery and onFailure in a PATCH body', () => {
  it('replaces the retry policy whole: the fields left out take their defaults, as at creation', () => {
    // act
    const parsed = change({ retry: { maxAttempts: 5, retryOn: [409] } });
    // assess
    expect(parsed.retry).toEqual({ ...DEFAULT_RETRY_POLICY, maxAttempts: 5, retryOn: [409] });
    expect(parsed.retry).toEqual(
      parseCreateJob(
        {
          target: { url: 'https://example.com/hook' },
          schedule: { type: 'interval', everySeconds: 60 },
          retry: { maxAttempts: 5, retryOn: [409] },
        },
        NOW,
      ).retry,
    );
  });

  it.each([
    [{ retry: { maxAttempts: 21 } }, 'retry.maxAttempts'],
    [{ retry: { initialDelaySeconds: 600, maxDelaySeconds: 60 } }, 'retry.initialDelaySeconds'],
    [{ retry: { retryOn: [429] } }, 'retry.retryOn'],
    [{ retry: { multiplier: 11 } }, 'retry.multiplier'],
    [{ onFailure: { url: 'http://169.254.169.254/latest' } }, 'onFailure.url'],
    [{ onFailure: { url: 'http://127.0.0.1:9/' } }, 'onFailure.url'],
    [{ onFailure: { url: 'ftp://example.com/' } }, 'onFailure.url'],
  ])('refuses %j as creation does, naming %s', (input, field) => {
    // act + assess
    expect(problemFieldsOf(input)).toEqual([field]);
  });

  it('takes a delivery mode, an onFailure URL, and null to remove the URL', () => {
    // act + assess
    expect(change({ delivery: 'at-most-once' })).toEqual({ delivery: 'at-most-once' });
    expect(change({ onFailure: { url: 'https://example.com/failed' } })).toEqual({
      onFailureUrl: 'https://example.com/failed',
    });
    expect(change({ onFailure: null })).toEqual({ onFailureUrl: null });
  });
});

describe('applying retry, delivery and onFailure to a job', () => {
  it('stores each new value, bumps the version, and shows it in the job view', async () => {
    // arrange
    const { deps, create } = setup();
    const job = await create({ ...every(3600, NOW + 3_600_000) });
    expect(jobView(job)).toMatchObject({
      retry: { ...DEFAULT_RETRY_POLICY, retryOn: [] },
      delivery: 'at-least-once',
      onFailure: null,
    });
    // act
    const updated = await updateJob(
      deps,
      TENANT,
      job.jobId,
      change({
        retry: { maxAttempts: 2, initialDelaySeconds: 5, retryOn: [409] },
        delivery: 'at-most-once',
        onFailure: { url: 'https://example.com/failed' },
      }),
      job.version,
      NOW + 1_000,
    );
    // assess
    expect(updated.version).toBe(job.version + 1);
    expect(await deps.jobs.get(TENANT, job.jobId)).toEqual(updated);
    expect(jobView(updated)).toMatchObject({
      retry: { maxAttempts: 2, initialDelaySeconds: 5, maxDelaySeconds: 300, multiplier: 2, retryOn: [409] },
      delivery: 'at-most-once',
      onFailure: { url: 'https://example.com/failed' },
      // Nothing else moved: the schedule position stays.
      nextFireAt: new Date(job.nextFireAt as number).toISOString(),
    });
  });

  it('removes the onFailure URL on null and keeps it when onFailure is not named', async () => {
    // arrange
    const { deps, create } = setup();
    const job = await create({ ...every(3600, NOW + 3_600_000), onFailure: { url: 'https://example.com/failed' } });
    // act
    const renamed = await updateJob(deps, TENANT, job.jobId, change({ name: 'x' }), job.version, NOW);
    const removed = await updateJob(deps, TENANT, job.jobId, change({ onFailure: null }), renamed.version, NOW);
    // assess
    expect(renamed.onFailureUrl).toBe('https://example.com/failed');
    expect(removed).not.toHaveProperty('onFailureUrl');
    expect(jobView(removed).onFailure).toBeNull();
    expect(removed.version).toBe(job.version + 2);
  });
});
