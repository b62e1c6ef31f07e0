/**
 * Whatever an invoker reports, the outcome computed from it is storable and never throws: every
 * number a safe integer (DynamoDB's marshaller refuses the rest), strings bounded and well formed,
 * the retry decision a time in range.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HttpResult } from '#core/ports';
import {
  DEFAULT_RETRY_POLICY,
  MAX_RETRY_AFTER_SECONDS,
  nextAttemptAt,
  readRetryAfter,
  retryDelayMs,
} from '#core/retry-policy';
import { MAX_ERROR_CHARS, outcomeOf } from '#core/use-cases/target-outcome';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const hostileNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -1, 0, 1e300, -1e300, 2 ** 53, 999, 600, 99, 1_000),
);
const hostileText = fc.oneof(
  fc.string({ maxLength: 50 }),
  fc.string({ unit: 'binary', maxLength: 5_000 }),
  fc.constant('\ud800'),
);
const hostileResult: fc.Arbitrary<HttpResult> = fc.oneof(
  fc.record({
    kind: fc.constant('response' as const),
    status: hostileNumber,
    bodyExcerpt: hostileText,
    durationMs: hostileNumber,
    startedAt: hostileNumber,
    retryAfterSeconds: fc.option(hostileNumber, { nil: undefined }),
    notes: fc.option(fc.array(hostileText, { maxLength: 3 }), { nil: undefined }),
  }),
  fc.record({
    kind: fc.constant('error' as const),
    errorType: fc.constantFrom('timeout' as const, 'connection' as const, 'blocked_target' as const),
    message: fc.oneof(hostileText, fc.constant('m'.repeat(1_000_000))),
    durationMs: hostileNumber,
    startedAt: hostileNumber,
  }),
);
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('the outcome of any target answer', () => {
  it('is storable: safe integers, a bounded well-formed error, a retry time in range', () => {
    fc.assert(
      fc.property(hostileResult, fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (result, random) => {
        const outcome = outcomeOf(result, NOW);
        for (const [field, value] of Object.entries(outcome)) {
          if (typeof value === 'number') expect(Number.isSafeInteger(value), `${field}: ${value}`).toBe(true);
        }
        expect((outcome.error ?? '').length).toBeLessThanOrEqual(MAX_ERROR_CHARS);
        expect(LONE_SURROGATE.test(outcome.error ?? '')).toBe(false);
        expect(LONE_SURROGATE.test(outcome.responseExcerpt ?? '')).toBe(false);
        if (outcome.retryAfterSeconds !== undefined) {
          expect(outcome.retryAfterSeconds).toBeGreaterThanOrEqual(0);
          expect(outcome.retryAfterSeconds).toBeLessThanOrEqual(MAX_RETRY_AFTER_SECONDS);
        }
        const at = nextAttemptAt({ ...DEFAULT_RETRY_POLICY, maxAttempts: 5 }, 1, outcome, outcome.completedAt, random);
        if (at !== undefined) {
          expect(Number.isSafeInteger(at)).toBe(true);
          expect(at - NOW).toBeLessThanOrEqual(DEFAULT_RETRY_POLICY.maxDelaySeconds * 1000);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('says what it clamped or left out', () => {
    const base = { kind: 'response' as const, bodyExcerpt: '', durationMs: 5, startedAt: NOW };
    expect(outcomeOf({ ...base, status: 503, retryAfterSeconds: 1e300 }, NOW)).toMatchObject({
      retryAfterSeconds: MAX_RETRY_AFTER_SECONDS,
      error: `target answered HTTP 503; Retry-After 1e+300 clamped to ${MAX_RETRY_AFTER_SECONDS} s`,
    });
    expect(outcomeOf({ ...base, status: 429, retryAfterSeconds: Number.NaN }, NOW).error).toBe(
      'target answered HTTP 429; Retry-After NaN ignored',
    );
    expect(outcomeOf({ ...base, status: Number.NaN }, NOW)).toMatchObject({
      status: 'FAILED',
      errorType: 'http_5xx',
      error: 'target answered an invalid HTTP status (NaN)',
    });
    expect(outcomeOf({ ...base, status: 200, notes: ['Retry-After "x" ignored'] }, NOW)).toMatchObject({
      status: 'SUCCEEDED',
      error: 'Retry-After "x" ignored',
    });
  });
});

describe('a Retry-After header', () => {
  it('is read as whole seconds in [0, a day], or ignored, whatever it says', () => {
    const header = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.bigInt({ min: -(10n ** 400n), max: 10n ** 400n }).map(String),
      fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()),
      fc.double().map(String),
    );
    fc.assert(
      fc.property(header, fc.integer({ min: 0, max: 8.64e15 }), (value, now) => {
        const read = readRetryAfter(value, now);
        if (read.seconds !== undefined) {
          expect(Number.isSafeInteger(read.seconds)).toBe(true);
          expect(read.seconds).toBeGreaterThanOrEqual(0);
          expect(read.seconds).toBeLessThanOrEqual(MAX_RETRY_AFTER_SECONDS);
        }
        if (read.note !== undefined) expect(read.note.length).toBeLessThan(120);
      }),
      { numRuns: 1_000 },
    );
  });

  it('keeps a sane value, clamps a huge one, ignores a negative or lenient-date one', () => {
    expect(readRetryAfter('120', 0)).toEqual({ seconds: 120 });
    expect(readRetryAfter('9'.repeat(400), 0)).toMatchObject({ seconds: MAX_RETRY_AFTER_SECONDS });
    expect(readRetryAfter('Fri, 31 Dec 9999 23:59:59 GMT', NOW)).toMatchObject({ seconds: MAX_RETRY_AFTER_SECONDS });
    expect(readRetryAfter('Fri, 31 Dec 1999 23:59:59 GMT', NOW)).toEqual({ seconds: 0 });
    expect(readRetryAfter('-5', NOW)).toEqual({ note: 'Retry-After "-5" ignored: not a delay or an HTTP date' });
    expect(readRetryAfter('1e300', NOW).seconds).toBeUndefined();
  });

  it('never makes a retry wait beyond the policy, whatever the jitter or the header', () => {
    fc.assert(
      fc.property(hostileNumber, hostileNumber, fc.integer({ min: 1, max: 1_000 }), (retryAfter, random, attempt) => {
        const delay = retryDelayMs(
          DEFAULT_RETRY_POLICY,
          attempt,
          { errorType: 'http_5xx', httpStatus: 503, retryAfterSeconds: retryAfter },
          random,
        );
        expect(Number.isSafeInteger(delay)).toBe(true);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThanOrEqual(DEFAULT_RETRY_POLICY.maxDelaySeconds * 1000);
      }),
    );
  });
});
