import { describe, expect, it } from 'vitest';
import {
  backoffCapMs,
  DEFAULT_RETRY_POLICY,
  isRetryable,
  nextAttemptAt,
  parseRetryAfter,
  retryDelayMs,
} from '#core/retry-policy';

const policy = DEFAULT_RETRY_POLICY;

describe('retry classification', () => {
  it('retries timeouts, connection errors, 5xx and 429', () => {
    expect(isRetryable({ errorType: 'timeout' }, policy)).toBe(true);
    expect(isRetryable({ errorType: 'connection' }, policy)).toBe(true);
    expect(isRetryable({ errorType: 'http_5xx', httpStatus: 502 }, policy)).toBe(true);
    expect(isRetryable({ errorType: 'http_4xx', httpStatus: 429 }, policy)).toBe(true);
  });

  it('does not retry other 4xx unless the job lists them', () => {
    expect(isRetryable({ errorType: 'http_4xx', httpStatus: 404 }, policy)).toBe(false);
    expect(isRetryable({ errorType: 'http_4xx', httpStatus: 409 }, { ...policy, retryOn: [409] })).toBe(true);
  });

  it('never retries a cancelled or blocked call', () => {
    expect(isRetryable({ errorType: 'cancelled' }, policy)).toBe(false);
    expect(isRetryable({ errorType: 'invalid_target' }, policy)).toBe(false);
  });
});

describe('backoff', () => {
  it('grows exponentially up to the maximum', () => {
    expect([1, 2, 3, 4].map((a) => backoffCapMs(policy, a))).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(backoffCapMs(policy, 20)).toBe(300_000);
  });

  it('jitters fully between zero and the cap', () => {
    expect(retryDelayMs(policy, 3, { errorType: 'timeout' }, 0)).toBe(0);
    expect(retryDelayMs(policy, 3, { errorType: 'timeout' }, 0.5)).toBe(2_000);
    expect(retryDelayMs(policy, 3, { errorType: 'timeout' }, 0.999_999)).toBeLessThan(4_000);
  });

  it('waits at least Retry-After on 429 and 503, capped at the maximum delay', () => {
    expect(retryDelayMs(policy, 1, { errorType: 'http_4xx', httpStatus: 429, retryAfterSeconds: 30 }, 0)).toBe(30_000);
    expect(retryDelayMs(policy, 1, { errorType: 'http_5xx', httpStatus: 503, retryAfterSeconds: 9_999 }, 0)).toBe(
      300_000,
    );
    expect(retryDelayMs(policy, 1, { errorType: 'http_5xx', httpStatus: 500, retryAfterSeconds: 30 }, 0)).toBe(0);
  });
});

describe('the next attempt', () => {
  it('is scheduled after a retryable failure while attempts remain', () => {
    expect(nextAttemptAt(policy, 1, { errorType: 'http_5xx', httpStatus: 500 }, 10_000, 0.5)).toBe(10_500);
    expect(nextAttemptAt(policy, 2, { errorType: 'timeout' }, 10_000, 0.5)).toBe(11_000);
  });

  it('is not scheduled after the last attempt or a permanent failure', () => {
    expect(nextAttemptAt(policy, 3, { errorType: 'timeout' }, 10_000, 0.5)).toBeUndefined();
    expect(nextAttemptAt(policy, 1, { errorType: 'http_4xx', httpStatus: 400 }, 10_000, 0.5)).toBeUndefined();
    expect(nextAttemptAt({ ...policy, maxAttempts: 1 }, 1, { errorType: 'timeout' }, 10_000, 0.5)).toBeUndefined();
  });
});

describe('Retry-After', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('120', 0)).toBe(120);
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:28:30 GMT', Date.parse('2026-10-21T07:28:00Z'))).toBe(30);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
    expect(parseRetryAfter(undefined, 0)).toBeUndefined();
  });
});
