/**
 * Properties of the API's ISO-8601 instants over the whole stored calendar range (1970 … 2199),
 * and just outside it: every instant inside round-trips through its ISO form (in UTC and under any
 * offset), every instant outside is refused with the range reason, and no text at all makes the
 * parser throw.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EARLIEST_INSTANT, INSTANT_RANGE_REASON, LATEST_INSTANT } from '#core/bounds';
import { parseIsoInstant } from '#core/schedule/iso-instant';

/** Instants of the whole range, biased towards its ends and the 12-to-13-digit change of 2001-09-09. */
const storedInstant = fc.oneof(
  fc.integer({ min: EARLIEST_INSTANT, max: LATEST_INSTANT }),
  fc.integer({ min: EARLIEST_INSTANT, max: EARLIEST_INSTANT + 86_400_000 }),
  fc.integer({ min: LATEST_INSTANT - 86_400_000, max: LATEST_INSTANT }),
  fc.integer({ min: 1e12 - 86_400_000, max: 1e12 + 86_400_000 }),
);

/** Instants `Date` can format whose ISO form has four year digits, but outside the stored range. */
const outsideInstant = fc.oneof(
  fc.integer({ min: Date.parse('0000-01-01T00:00:00Z'), max: EARLIEST_INSTANT - 1 }),
  fc.integer({ min: EARLIEST_INSTANT - 86_400_000, max: EARLIEST_INSTANT - 1 }),
  fc.integer({ min: LATEST_INSTANT + 1, max: LATEST_INSTANT + 86_400_000 }),
  fc.integer({ min: LATEST_INSTANT + 1, max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) }),
);

/** A UTC offset ±hh:mm as the API accepts it (hours 0..23, minutes 0..59), in minutes. */
const offsetMinutes = fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 });

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** `ms` written as the wall clock under `offset` minutes with that offset, e.g. `2026-03-08T04:30:00.000+02:00`. */
function withOffset(ms: number, offset: number): string {
  const wall = new Date(ms + offset * 60_000).toISOString().slice(0, -1);
  const sign = offset < 0 ? '-' : '+';
  const size = Math.abs(offset);
  return `${wall}${sign}${pad(Math.floor(size / 60), 2)}:${pad(size % 60, 2)}`;
}

describe('ISO instants over the whole stored range', () => {
  it('parses the ISO form of every stored instant back to the same millisecond', () => {
    fc.assert(
      fc.property(storedInstant, (ms) => {
        expect(parseIsoInstant(new Date(ms).toISOString())).toEqual({ ok: true, at: ms });
      }),
      { numRuns: 2000 },
    );
  });

  it('reads the same instant written under any UTC offset, as long as the instant is stored', () => {
    fc.assert(
      fc.property(storedInstant, offsetMinutes, (ms, offset) => {
        const wallYear = new Date(ms + offset * 60_000).getUTCFullYear();
        fc.pre(wallYear >= 0 && wallYear <= 9999);
        expect(parseIsoInstant(withOffset(ms, offset))).toEqual({ ok: true, at: ms });
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps whole seconds and minutes when the fraction or the seconds are left out, and truncates below ms', () => {
    fc.assert(
      fc.property(storedInstant, fc.integer({ min: 0, max: 999_999 }), (ms, extra) => {
        const iso = new Date(ms).toISOString();
        const second = Math.floor(ms / 1000) * 1000;
        const minute = Math.floor(ms / 60_000) * 60_000;
        expect(parseIsoInstant(`${iso.slice(0, 19)}Z`)).toEqual({ ok: true, at: second });
        expect(parseIsoInstant(`${iso.slice(0, 16)}Z`)).toEqual({ ok: true, at: minute });
        // Nanoseconds past the millisecond are cut, never rounded into the next one.
        expect(parseIsoInstant(`${iso.slice(0, 23)}${pad(extra, 6)}Z`)).toEqual({ ok: true, at: ms });
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses every instant just before 1970 or after 2199 with the range reason, in any offset', () => {
    fc.assert(
      fc.property(outsideInstant, offsetMinutes, (ms, offset) => {
        const wallYear = new Date(ms + offset * 60_000).getUTCFullYear();
        fc.pre(wallYear >= 0 && wallYear <= 9999);
        expect(parseIsoInstant(new Date(ms).toISOString())).toEqual({ ok: false, reason: INSTANT_RANGE_REASON });
        expect(parseIsoInstant(withOffset(ms, offset))).toEqual({ ok: false, reason: INSTANT_RANGE_REASON });
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses the first instant past each end, even when its wall clock reads inside the range', () => {
    // 1969-12-31T23:59:59.999Z written in +01:00 reads 1970; 2200-01-01T00:00Z in -01:00 reads 2199.
    expect(parseIsoInstant('1970-01-01T00:59:59.999+01:00')).toEqual({ ok: false, reason: INSTANT_RANGE_REASON });
    expect(parseIsoInstant('2199-12-31T23:00:00.000-01:00')).toEqual({ ok: false, reason: INSTANT_RANGE_REASON });
    expect(parseIsoInstant('1970-01-01T01:00:00.000+01:00')).toEqual({ ok: true, at: EARLIEST_INSTANT });
    expect(parseIsoInstant('2199-12-31T22:59:59.999-01:00')).toEqual({ ok: true, at: LATEST_INSTANT });
  });

  it('refuses the years 0000 … 0099 as outside the range, not as impossible dates (Date.UTC reads them as 19xx)', () => {
    for (const text of [
      '0099-12-31T23:59:59.999Z',
      '0070-06-01T00:00:00Z',
      '0000-01-01T00:00:00Z',
      '0001-02-28T12:00:00+01:00',
    ]) {
      expect(parseIsoInstant(text)).toEqual({ ok: false, reason: INSTANT_RANGE_REASON });
    }
    expect(parseIsoInstant('0099-02-29T00:00:00Z')).toEqual({
      ok: false,
      reason: 'is not a valid calendar date and time',
    });
  });

  it('never throws, and accepts only in-range instants that mean what their fields say, whatever the text', () => {
    const digits = (n: number) => fc.stringMatching(new RegExp(`^\\d{${n}}$`));
    // The parser's own shape, with any digits in every field: impossible dates, 24:00, offsets past 23:59.
    const shaped = fc
      .tuple(
        digits(4),
        digits(2),
        digits(2),
        digits(2),
        digits(2),
        fc.option(digits(2)),
        fc.option(fc.stringMatching(/^\d{1,9}$/)),
        fc.oneof(
          fc.constant('Z'),
          fc.tuple(fc.constantFrom('+', '-'), digits(2), digits(2)).map((z) => z.join('')),
        ),
      )
      .map(([y, mo, d, h, mi, s, f, z]) => {
        const seconds = s === null ? '' : `:${s}${f === null ? '' : `.${f}`}`;
        const zone = z === 'Z' ? 'Z' : `${z.slice(0, 3)}:${z.slice(3)}`;
        return `${y}-${mo}-${d}T${h}:${mi}${seconds}${zone}`;
      });
    fc.assert(
      fc.property(fc.oneof(shaped, fc.string(), fc.string({ unit: 'binary' })), (text) => {
        const parsed = parseIsoInstant(text);
        if (!parsed.ok) {
          expect(typeof parsed.reason).toBe('string');
          return;
        }
        expect(parsed.at).toBeGreaterThanOrEqual(EARLIEST_INSTANT);
        expect(parsed.at).toBeLessThanOrEqual(LATEST_INSTANT);
        expect(Number.isSafeInteger(parsed.at)).toBe(true);
        // An accepted text is a real calendar date-time: Date reads the same instant from it.
        expect(Date.parse(text)).toBe(parsed.at);
      }),
      { numRuns: 3000 },
    );
  });
});
