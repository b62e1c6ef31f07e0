/**
 * Callback tokens: what seal makes, open gives back, and nothing else opens — a changed character,
 * another key, another tenant's claims, random text — and opening never throws.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CallbackClaims,
  MAX_CALLBACK_TOKEN_CHARS,
  MAX_CLAIM_ID_BYTES,
  newCallbackKey,
  openCallbackToken,
  sealCallbackToken,
} from '#core/async/callback-token';
import { LATEST_INSTANT } from '#core/bounds';

const KEY = 'k'.repeat(32);
const OLD_KEY = 'o'.repeat(32);
const CLAIMS: CallbackClaims = {
  tenantId: 'acme',
  jobId: '01JD6S3Q6Z8X4T2M9R5V7W1Y0A',
  scheduledFor: Date.parse('2026-11-24T22:00:00Z'),
  attempt: 2,
};
const BASE64URL = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'];

const idArb = fc.stringMatching(new RegExp(`^[A-Za-z0-9_-]{1,${MAX_CLAIM_ID_BYTES}}$`));
const claimsArb: fc.Arbitrary<CallbackClaims> = fc.record({
  tenantId: idArb,
  jobId: idArb,
  scheduledFor: fc.integer({ min: 0, max: LATEST_INSTANT }),
  attempt: fc.integer({ min: 1, max: 999 }),
});
const keyArb = fc.string({ minLength: 32, maxLength: 64 });

describe('callback tokens', () => {
  it('open to the claims they were sealed with, and are URL-safe', () => {
    const token = sealCallbackToken(CLAIMS, [KEY]);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(openCallbackToken(token, [KEY])).toEqual({ ok: true, claims: CLAIMS });
  });

  it('are the same for the same attempt, and differ for another attempt', () => {
    expect(sealCallbackToken(CLAIMS, [KEY])).toBe(sealCallbackToken(CLAIMS, [KEY]));
    expect(sealCallbackToken(CLAIMS, [KEY])).not.toBe(sealCallbackToken({ ...CLAIMS, attempt: 3 }, [KEY]));
  });

  it('rotate: sealed with the newest key, opened by any key still listed, refused once the key is dropped', () => {
    const old = sealCallbackToken(CLAIMS, [OLD_KEY]);
    const rotated = [KEY, OLD_KEY];
    expect(openCallbackToken(old, rotated)).toEqual({ ok: true, claims: CLAIMS });
    expect(sealCallbackToken(CLAIMS, rotated)).toBe(sealCallbackToken(CLAIMS, [KEY]));
    expect(openCallbackToken(old, [KEY])).toEqual({ ok: false, refusal: 'bad_signature' });
    expect(openCallbackToken(old, [])).toEqual({ ok: false, refusal: 'bad_signature' });
  });

  it('refuses a token longer than the maximum before decoding it, and the longest real token fits', () => {
    const longest = sealCallbackToken(
      { ...CLAIMS, tenantId: 't'.repeat(MAX_CLAIM_ID_BYTES), jobId: 'j'.repeat(MAX_CLAIM_ID_BYTES) },
      [KEY],
    );
    expect(longest.length).toBeLessThanOrEqual(MAX_CALLBACK_TOKEN_CHARS);
    expect(MAX_CALLBACK_TOKEN_CHARS).toBe(228);
    expect(openCallbackToken(`${longest}AAAA`, [KEY])).toEqual({ ok: false, refusal: 'too_long' });
    expect(openCallbackToken('A'.repeat(1_000_000), [KEY])).toEqual({ ok: false, refusal: 'too_long' });
  });

  it.each([
    ['', 'malformed'],
    ['not a token', 'malformed'],
    ['abc+/=', 'malformed'],
    ['AAAA', 'malformed'],
    [`Ag${'A'.repeat(80)}`, 'unknown_version'],
  ])('refuses %j as %s', (token, refusal) => {
    expect(openCallbackToken(token, [KEY])).toEqual({ ok: false, refusal });
  });

  it('refuses values that are not strings at all', () => {
    for (const value of [undefined, null, 42, {}, ['x']]) {
      expect(openCallbackToken(value, [KEY])).toEqual({ ok: false, refusal: 'malformed' });
    }
  });

  it('refuses a non-canonical spelling of a real token (the unused bits of its last character changed)', () => {
    const token = sealCallbackToken(CLAIMS, [KEY]);
    // A token of 32 + payload bytes whose length is not a multiple of 3 leaves low bits unused.
    const last = token.at(-1) as string;
    const sibling = BASE64URL.find(
      (c) => c !== last && Buffer.from(token.slice(0, -1) + c, 'base64url').equals(Buffer.from(token, 'base64url')),
    );
    if (sibling === undefined) throw new Error('the fixture token must have unused bits; change CLAIMS');
    expect(openCallbackToken(token.slice(0, -1) + sibling, [KEY])).toEqual({ ok: false, refusal: 'malformed' });
  });

  it('will not seal without a key of 32 characters, nor claims no run can have', () => {
    expect(() => sealCallbackToken(CLAIMS, [])).toThrow(/no callback key/);
    expect(() => sealCallbackToken(CLAIMS, ['short'])).toThrow(/no callback key/);
    expect(() => sealCallbackToken({ ...CLAIMS, attempt: 0 }, [KEY])).toThrow(RangeError);
    expect(() => sealCallbackToken({ ...CLAIMS, attempt: 1000 }, [KEY])).toThrow(RangeError);
    expect(() => sealCallbackToken({ ...CLAIMS, scheduledFor: -1 }, [KEY])).toThrow(RangeError);
    expect(() => sealCallbackToken({ ...CLAIMS, tenantId: '' }, [KEY])).toThrow(RangeError);
    expect(() => sealCallbackToken({ ...CLAIMS, jobId: 'j'.repeat(65) }, [KEY])).toThrow(RangeError);
    expect(() => sealCallbackToken({ ...CLAIMS, tenantId: '\ud800' }, [KEY])).toThrow(RangeError);
  });

  it('makes new keys of 43 URL-safe characters, each different', () => {
    const key = newCallbackKey();
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newCallbackKey()).not.toBe(key);
  });
});

describe('callback token properties', () => {
  it('round trip: any claims a run can have open as sealed', () => {
    fc.assert(
      fc.property(claimsArb, keyArb, (claims, key) => {
        expect(openCallbackToken(sealCallbackToken(claims, [key]), [key])).toEqual({ ok: true, claims });
      }),
    );
  });

  it('any single-character change is refused', () => {
    fc.assert(
      fc.property(claimsArb, fc.nat(), fc.constantFrom(...BASE64URL, '.', '=', '~', ' '), (claims, at, c) => {
        const token = sealCallbackToken(claims, [KEY]);
        const i = at % token.length;
        fc.pre(token[i] !== c);
        const tampered = token.slice(0, i) + c + token.slice(i + 1);
        expect(openCallbackToken(tampered, [KEY]).ok).toBe(false);
      }),
    );
  });

  it('a token sealed for one tenant never opens as another tenant’s claims', () => {
    fc.assert(
      fc.property(claimsArb, idArb, (claims, otherTenant) => {
        fc.pre(otherTenant !== claims.tenantId);
        const opened = openCallbackToken(sealCallbackToken(claims, [KEY]), [KEY]);
        expect(opened.ok && opened.claims.tenantId).toBe(claims.tenantId);
        // Nor does a token sealed for the other tenant open with this tenant's claims.
        const other = openCallbackToken(sealCallbackToken({ ...claims, tenantId: otherTenant }, [KEY]), [KEY]);
        expect(other.ok && other.claims.tenantId).toBe(otherTenant);
      }),
    );
  });

  it('a token sealed with another key is refused', () => {
    fc.assert(
      fc.property(claimsArb, keyArb, keyArb, (claims, key, other) => {
        fc.pre(key !== other);
        expect(openCallbackToken(sealCallbackToken(claims, [other]), [key])).toEqual({
          ok: false,
          refusal: 'bad_signature',
        });
      }),
    );
  });

  it('random strings are refused, and opening never throws', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 300 }), fc.base64String({ maxLength: 300 })), (text) => {
        expect(openCallbackToken(text, [KEY]).ok).toBe(false);
        expect(openCallbackToken(text.replaceAll('+', '-').replaceAll('/', '_').replaceAll('=', ''), [KEY]).ok).toBe(
          false,
        );
      }),
    );
  });
});
