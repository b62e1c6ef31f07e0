/**
 * A cursor's string keys are bounded in bytes of UTF-8, as DynamoDB bounds sort keys, not in
 * characters: found by the model-based fuzzer (test/e2e/fuzz.test.ts, FUZZ_SEED=7), which widens a
 * real jobs cursor's `jobId` to 1,098 bytes of `€` (366 characters). DynamoDB Local accepts such
 * a start key; DynamoDB answers it with a ValidationException, a 500 from the deployed API.
 */
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, MAX_KEY_VALUE_BYTES } from '#adapters/dynamodb/cursor';
import { jobsCursor } from '#adapters/dynamodb/listing-cursors';

const tenant = 'dev-tenant';
const cursorWithJobId = (jobId: string) => encodeCursor({ tenantId: tenant, jobId }) as string;
const refusal = (cursor: string) => {
  try {
    decodeCursor(cursor, jobsCursor(tenant));
    return undefined;
  } catch (error) {
    return (error as { details?: unknown }).details;
  }
};

describe('cursor keys are bounded as DynamoDB bounds them', () => {
  it('refuses a key string over 1024 bytes of UTF-8 even when it is far under 1024 characters', () => {
    for (const [char, count] of [
      ['é', 513],
      ['€', 342],
      ['😀', 257],
    ] as const) {
      const jobId = char.repeat(count);
      expect(jobId.length).toBeLessThan(MAX_KEY_VALUE_BYTES);
      expect(Buffer.byteLength(jobId)).toBeGreaterThan(MAX_KEY_VALUE_BYTES);
      expect(refusal(cursorWithJobId(jobId)), char).toEqual([
        { field: 'cursor', reason: 'is not a cursor this API returned' },
      ]);
    }
  });

  it('accepts a key string of exactly 1024 bytes, multi-byte characters included', () => {
    expect(refusal(cursorWithJobId('é'.repeat(512)))).toBeUndefined();
    expect(refusal(cursorWithJobId('x'.repeat(1024)))).toBeUndefined();
    expect(decodeCursor(cursorWithJobId('01KAAAAAAAAAAAAAAAAAAAAAAA'), jobsCursor(tenant))).toEqual({
      tenantId: tenant,
      jobId: '01KAAAAAAAAAAAAAAAAAAAAAAA',
    });
  });

  it('refuses a key string that is not well-formed Unicode (a lone surrogate has no UTF-8 form)', () => {
    expect(refusal(cursorWithJobId('a\ud800'))).toEqual([
      { field: 'cursor', reason: 'is not a cursor this API returned' },
    ]);
    expect(refusal(cursorWithJobId('\udfffb'))).toEqual([
      { field: 'cursor', reason: 'is not a cursor this API returned' },
    ]);
    expect(refusal(cursorWithJobId('😀'))).toBeUndefined();
  });
});
