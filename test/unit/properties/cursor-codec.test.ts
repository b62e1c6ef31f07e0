/**
 * Properties of the listing cursors (base64url JSON of DynamoDB's LastEvaluatedKey) over the whole
 * range of keys: every cursor a listing issues decodes to the key it was made from; every mutation
 * of its text decodes to a key the listing accepts or is refused with a ValidationError naming
 * `cursor`; every mutation of the types, names or partition inside it is refused. Nothing else is
 * ever thrown, so no cursor a client sends can reach DynamoDB as a key of the wrong shape (a 500).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CursorSpec, decodeCursor, encodeCursor, MAX_CURSOR_LENGTH } from '#adapters/dynamodb/cursor';
import { deadLettersCursor, jobsCursor, runsOfJobCursor } from '#adapters/dynamodb/listing-cursors';
import { runTableKey } from '#adapters/dynamodb/run-item';
import { EARLIEST_INSTANT, LATEST_INSTANT, MAX_ATTEMPT_NUMBER } from '#core/bounds';
import { ValidationError } from '#core/errors';
import { storedInstant } from './arbitraries.ts';

const tenantId = fc.oneof(fc.stringMatching(/^[a-z0-9-]{1,40}$/), fc.string({ minLength: 1, maxLength: 40 }));
const jobId = fc.stringMatching(/^[0-9A-Z]{26}$/);
const attempt = fc.integer({ min: 1, max: MAX_ATTEMPT_NUMBER });

/** A listing, its spec, and a key it issues as a cursor, for each of the three listings. */
const issued = fc.oneof(
  fc.tuple(tenantId, jobId).map(([tenant, job]) => ({
    spec: jobsCursor(tenant),
    key: { tenantId: tenant, jobId: job } as Record<string, string | number>,
  })),
  fc.tuple(tenantId, jobId, storedInstant, storedInstant, storedInstant, attempt).map(([tenant, job, a, b, c, n]) => {
    const [from, at, to] = [a, b, c].sort((x, y) => x - y) as [number, number, number];
    const low = runTableKey({ tenantId: tenant, jobId: job, scheduledFor: from, attempt: 0 });
    const high = runTableKey({ tenantId: tenant, jobId: job, scheduledFor: to, attempt: 999 });
    const run = runTableKey({ tenantId: tenant, jobId: job, scheduledFor: at, attempt: n });
    return { spec: runsOfJobCursor(low.pk, low.sk, high.sk), key: { ...run } as Record<string, string | number> };
  }),
  fc.tuple(tenantId, jobId, storedInstant, attempt, storedInstant).map(([tenant, job, at, n, deadAt]) => ({
    spec: deadLettersCursor(tenant),
    key: {
      ...runTableKey({ tenantId: tenant, jobId: job, scheduledFor: at, attempt: n }),
      deadLetterTenant: tenant,
      deadLetteredAt: deadAt,
    } as Record<string, string | number>,
  })),
);

/** Decodes, and says whether it was refused as a cursor; any other throw fails the property. */
function outcome(
  cursor: string,
  spec: CursorSpec,
): { refused: true } | { refused: false; key: Record<string, unknown> } {
  try {
    const key = decodeCursor(cursor, spec);
    return { refused: false, key: key as Record<string, unknown> };
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).details.map((detail) => detail.field)).toEqual(['cursor']);
    return { refused: true };
  }
}

/** What the spec promises of any key it lets through. */
function expectAcceptedBy(key: Record<string, unknown>, spec: CursorSpec) {
  expect(Object.keys(key).sort()).toEqual(Object.keys(spec.keys).sort());
  for (const [name, type] of Object.entries(spec.keys)) {
    if (type === 'instant') {
      expect(Number.isSafeInteger(key[name])).toBe(true);
      expect(key[name]).toBeGreaterThanOrEqual(EARLIEST_INSTANT);
      expect(key[name]).toBeLessThanOrEqual(LATEST_INSTANT);
    } else expect(typeof key[name]).toBe('string');
  }
  for (const [name, value] of Object.entries(spec.pinned ?? {})) expect(key[name]).toBe(value);
  if (spec.accepts) expect(spec.accepts(key as Record<string, string | number>)).toBe(true);
}

/** Changes that make a key wrong for its listing: a value of another type, a name added or dropped. */
const brokenValue = fc.oneof(
  fc.constantFrom<unknown>(null, true, [], {}, '', -1, 1.5, 1e300, Number.MAX_SAFE_INTEGER + 2),
  fc.constantFrom<unknown>(LATEST_INSTANT + 1, EARLIEST_INSTANT - 1, 'x'.repeat(1025)),
  fc.integer({ max: -1 }),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }),
);

describe('listing cursors over the whole range of keys', () => {
  it('decodes every cursor a listing issues to the key it was made from', () => {
    fc.assert(
      fc.property(issued, ({ spec, key }) => {
        const cursor = encodeCursor(key) as string;
        expect(cursor.length).toBeLessThanOrEqual(MAX_CURSOR_LENGTH);
        expect(decodeCursor(cursor, spec)).toEqual(key);
      }),
      { numRuns: 3000 },
    );
  });

  it('refuses or accepts every mutation of the text, and what it accepts is a key of the same listing', () => {
    const textMutation = fc.oneof(
      fc.tuple(fc.nat(), fc.string({ minLength: 1, maxLength: 1 })).map(([at, char]) => (c: string) => {
        const index = at % c.length;
        return c.slice(0, index) + char + c.slice(index + 1);
      }),
      fc.tuple(fc.nat(), fc.string({ maxLength: 4 })).map(([at, text]) => (c: string) => {
        const index = at % (c.length + 1);
        return c.slice(0, index) + text + c.slice(index);
      }),
      fc.nat().map((at) => (c: string) => c.slice(0, at % c.length)),
      fc.nat().map((at) => (c: string) => c.slice(at % c.length)),
      fc.constant((c: string) => c.repeat(2)),
      fc.constant((c: string) => `${c}=`),
      fc.constant((c: string) => Buffer.from(Buffer.from(c, 'base64url').toString('utf8')).toString('base64')),
      fc.constant((c: string) => c.padEnd(MAX_CURSOR_LENGTH + 1, 'A')),
    );
    fc.assert(
      fc.property(issued, fc.array(textMutation, { minLength: 1, maxLength: 3 }), ({ spec, key }, mutations) => {
        const cursor = mutations.reduce((text, mutate) => mutate(text), encodeCursor(key) as string);
        const result = outcome(cursor, spec);
        if (!result.refused) expectAcceptedBy(result.key, spec);
      }),
      { numRuns: 5000 },
    );
  });

  it('refuses every key whose names, types or partition were changed inside a real cursor', () => {
    const keyMutation = fc.oneof(
      fc.tuple(fc.nat(), brokenValue).map(([at, value]) => (key: Record<string, unknown>) => {
        const names = Object.keys(key);
        return { ...key, [names[at % names.length] as string]: value };
      }),
      fc.nat().map((at) => (key: Record<string, unknown>) => {
        const names = Object.keys(key);
        const { [names[at % names.length] as string]: _dropped, ...rest } = key;
        return rest;
      }),
      fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue()).map(
        ([name, value]) =>
          (key: Record<string, unknown>) =>
            Object.hasOwn(key, name) ? { ...key, [`${name}x`]: value } : { ...key, [name]: value },
      ),
      fc.string({ minLength: 1, maxLength: 20 }).map((other) => (key: Record<string, unknown>) => {
        // Another partition: the pinned attribute names a different tenant or job.
        const pinned = Object.hasOwn(key, 'deadLetterTenant')
          ? 'deadLetterTenant'
          : Object.hasOwn(key, 'pk')
            ? 'pk'
            : 'tenantId';
        return { ...key, [pinned]: `${String(key[pinned])}${other}` };
      }),
    );
    fc.assert(
      fc.property(issued, keyMutation, ({ spec, key }, mutate) => {
        const mutated = mutate(key);
        const result = outcome(encodeCursor(mutated) as string, spec);
        expect(result.refused).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it('refuses a runs cursor outside the query range or not in the run key layout', () => {
    const skMutation = fc.oneof(
      fc.constantFrom('', '#', '0000000000000#000', '9999999999999#999', 'trigger#k', '1#1'),
      fc.tuple(storedInstant, fc.integer({ min: 0, max: 999 })).map(([t, n]) => `${t}#${String(n).padStart(3, '0')}`),
      fc.tuple(storedInstant, fc.integer({ min: 1, max: 999 })).map(([t, n]) => `${String(t).padStart(14, '0')}#${n}`),
    );
    fc.assert(
      fc.property(jobId, storedInstant, storedInstant, skMutation, (job, a, b, sk) => {
        const [from, to] = [Math.min(a, b), Math.max(a, b)];
        const low = runTableKey({ tenantId: 't', jobId: job, scheduledFor: from, attempt: 0 });
        const high = runTableKey({ tenantId: 't', jobId: job, scheduledFor: to, attempt: 999 });
        const result = outcome(encodeCursor({ pk: low.pk, sk }) as string, runsOfJobCursor(low.pk, low.sk, high.sk));
        const wellFormed = /^\d{13}#(?!000)\d{3}$/.test(sk) && sk >= low.sk && sk <= high.sk;
        expect(result.refused).toBe(!wellFormed);
      }),
      { numRuns: 3000 },
    );
  });

  it('measures a key value in UTF-8 bytes, as DynamoDB does: 1,024 bytes pass, 1,025 are refused', () => {
    fc.assert(
      fc.property(fc.constantFrom('a', 'é', '€', '😀'), fc.integer({ min: 1, max: 1100 }), (char, count) => {
        const value = char.repeat(count);
        const bytes = Buffer.byteLength(value, 'utf8');
        const cursor = encodeCursor({ tenantId: 't', jobId: value }) as string;
        const result = outcome(cursor, jobsCursor('t'));
        expect(result.refused).toBe(bytes > 1024 || cursor.length > MAX_CURSOR_LENGTH);
      }),
    );
    // 500 × "€" is 500 characters, 1,500 bytes: refused (DynamoDB would refuse the key, a 500).
    expect(outcome(encodeCursor({ tenantId: 't', jobId: '€'.repeat(500) }) as string, jobsCursor('t')).refused).toBe(
      true,
    );
  });
});
