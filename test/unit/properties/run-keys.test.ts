/**
 * Properties of how runs are keyed, over the whole range of occurrences (1970 … 2199, across the
 * change from 12- to 13-digit epoch ms on 2001-09-09) and attempts (1 … 999): the runs table's
 * sort keys order exactly as (scheduledFor, attempt) do, a job's key range holds exactly the runs
 * scheduled inside it, and run ids round-trip. A sort key that ordered differently would make the
 * history, `previous` and `latestRuns` read the wrong run.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runTableKey } from '#adapters/dynamodb/run-item';
import { MAX_ATTEMPT_NUMBER } from '#core/bounds';
import { parseRunId, runIdOf } from '#core/run-id';
import { newRun } from '#core/use-cases/new-run';
import { storedInstant } from './arbitraries.ts';

const attempt = fc.oneof(fc.integer({ min: 1, max: MAX_ATTEMPT_NUMBER }), fc.constantFrom(1, 9, 10, 99, 100, 999));
const runKey = fc.record({ scheduledFor: storedInstant, attempt });
const jobId = fc.stringMatching(/^[0-9A-Za-z]{1,26}$/);

const sortKey = (key: { scheduledFor: number; attempt: number }) =>
  runTableKey({ tenantId: 't', jobId: 'J', ...key }).sk;
const compareTuples = (a: { scheduledFor: number; attempt: number }, b: { scheduledFor: number; attempt: number }) =>
  Math.sign(a.scheduledFor - b.scheduledFor || a.attempt - b.attempt);
const compareStrings = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe('run keys over the whole range', () => {
  it('writes every sort key as 13 digits, #, 3 digits, that read back as the occurrence and attempt', () => {
    fc.assert(
      fc.property(runKey, (key) => {
        const sk = sortKey(key);
        expect(sk).toMatch(/^\d{13}#\d{3}$/);
        expect(Number(sk.slice(0, 13))).toBe(key.scheduledFor);
        expect(Number(sk.slice(14))).toBe(key.attempt);
      }),
      { numRuns: 3000 },
    );
  });

  it('orders sort keys as strings exactly as (scheduledFor, attempt) order as numbers', () => {
    fc.assert(
      fc.property(runKey, runKey, (a, b) => {
        expect(compareStrings(sortKey(a), sortKey(b))).toBe(compareTuples(a, b));
      }),
      { numRuns: 5000 },
    );
  });

  it('sorts a whole history the same way as strings and as numbers, across 2001-09-09', () => {
    fc.assert(
      fc.property(fc.uniqueArray(runKey, { minLength: 2, maxLength: 40, selector: sortKey }), (keys) => {
        const byNumbers = [...keys].sort(compareTuples).map(sortKey);
        const byStrings = keys.map(sortKey).sort();
        expect(byStrings).toEqual(byNumbers);
      }),
      { numRuns: 500 },
    );
  });

  it("puts a run inside a job's key range [from#000, to#999] exactly when from <= scheduledFor <= to", () => {
    fc.assert(
      fc.property(runKey, storedInstant, storedInstant, (key, from, to) => {
        const low = sortKey({ scheduledFor: from, attempt: 0 });
        const high = sortKey({ scheduledFor: to, attempt: 999 });
        const sk = sortKey(key);
        expect(sk >= low && sk <= high).toBe(key.scheduledFor >= from && key.scheduledFor <= to);
      }),
      { numRuns: 5000 },
    );
  });

  it('keeps every run sort key below the trigger markers of the same partition', () => {
    fc.assert(
      fc.property(runKey, fc.string({ minLength: 1, maxLength: 128 }), (key, idempotencyKey) => {
        expect(sortKey(key) < `trigger#${idempotencyKey}`).toBe(true);
      }),
    );
  });

  it('round-trips run ids and builds the same id for the same attempt', () => {
    fc.assert(
      fc.property(jobId, runKey, (job, key) => {
        const runId = runIdOf({ jobId: job, ...key });
        expect(parseRunId(runId)).toEqual({ jobId: job, ...key });
        expect(newRun({ tenantId: 't', jobId: job }, key.scheduledFor, key.attempt, 0, 7).runId).toBe(runId);
      }),
      { numRuns: 3000 },
    );
  });

  it('refuses an attempt outside 1 … 999 before any key is built', () => {
    const outside = fc.oneof(
      fc.integer({ min: MAX_ATTEMPT_NUMBER + 1, max: Number.MAX_SAFE_INTEGER }),
      fc.integer({ min: Number.MIN_SAFE_INTEGER, max: 0 }),
      fc.constantFrom(1.5, Number.NaN, Number.POSITIVE_INFINITY),
    );
    fc.assert(
      fc.property(outside, storedInstant, (bad, scheduledFor) => {
        expect(() => newRun({ tenantId: 't', jobId: 'J' }, scheduledFor, bad, 0, 7)).toThrow(RangeError);
      }),
    );
  });
});
