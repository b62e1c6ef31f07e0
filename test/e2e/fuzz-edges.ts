/**
 * Values at the edges of what Chronos represents (functions/core/bounds.ts): instants across the
 * whole of `Date`'s range and just past it, numbers around every bound and around
 * Number.MAX_SAFE_INTEGER, and strings outside ASCII. Each generator mixes the exact edges with
 * random values, so the edges come up often and their neighbourhoods too.
 */
import fc from 'fast-check';

const MS_DAY = 86_400_000;
/** Instants where a representation changes: the epoch, the accepted range's end, the 13-digit sort key's end, Date's end. */
const EDGE_MS = [
  -8.64e15,
  Date.UTC(-1, 0, 1),
  Date.UTC(0, 0, 1) - 1,
  -1,
  0,
  1,
  Date.UTC(2026, 0, 1),
  Date.UTC(2199, 11, 31, 23, 59, 59, 999),
  Date.UTC(2200, 0, 1),
  9_999_999_999_999,
  10_000_000_000_000,
  Date.UTC(9999, 11, 31, 23, 59, 59, 999),
  Date.UTC(10000, 0, 1),
  8.64e15,
];

/** An epoch-ms instant: an edge, next to one, or anywhere in Date's range. */
export const instantMs = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...EDGE_MS) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(...EDGE_MS), fc.integer({ min: -MS_DAY, max: MS_DAY }))
      .map(([edge, delta]) => Math.max(-8.64e15, Math.min(8.64e15, edge + delta))),
  },
  { weight: 1, arbitrary: fc.integer({ min: -8.64e15, max: 8.64e15 }) },
  { weight: 2, arbitrary: fc.integer({ min: Date.now() - 30 * MS_DAY, max: Date.now() + 365 * MS_DAY }) },
);

/** Renders an instant as a client might: ISO with Z or an offset, more or fewer digits, no zone, a leap second. */
const spelled = (ms: number, style: number): string => {
  const iso = new Date(ms).toISOString();
  switch (style) {
    case 0:
      return iso;
    case 1:
      return iso.replace('Z', '+14:00');
    case 2:
      return iso.replace('Z', '-12:00');
    case 3:
      return iso.replace('.000Z', 'Z').replace(/\.\d{3}Z$/, 'Z');
    case 4:
      return iso.replace('Z', ''); // no zone: must be refused
    case 5:
      return iso.replace(/\.(\d{3})Z$/, '.$1456789Z');
    case 6:
      return iso.replace(/T(\d\d):\d\d:\d\d/, 'T$1:59:60'); // a leap second
    case 7:
      return iso.toLowerCase();
    default:
      return iso.replace('Z', '+23:59');
  }
};

/** A date-time string: a spelled instant, mostly, or a string that only looks like one. */
export const instantText = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.tuple(instantMs, fc.integer({ min: 0, max: 8 })).map(([ms, style]) => spelled(ms, style)),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '+275760-09-13T00:00:00.000Z',
      '+275760-09-13T00:00:00.001Z',
      '-271821-04-20T00:00:00.000Z',
      '-000001-01-01T00:00:00Z',
      '0000-01-01T00:00:00Z',
      '2026-02-30T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '２０２６-０１-０１T00:00:00Z',
      '2026-01-01T00:00:00Z\u0000',
      '2026-01-01 00:00:00Z',
      '1e13',
      '9999999999999',
      'now',
      '',
    ),
  },
);

/** A number around `min`/`max` of a bound, or at the edges of doubles and safe integers. */
export function numberNear(min: number, max: number) {
  return fc.oneof(
    fc.constantFrom(min - 1, min, max, max + 1, (min + max) / 2 + 0.5),
    fc.integer({ min, max: Math.min(max, min + 1000) }),
    fc.constantFrom(
      0,
      -0,
      -1,
      0.5,
      1e-7,
      Number.MAX_SAFE_INTEGER,
      Number.MAX_SAFE_INTEGER + 1,
      Number.MAX_SAFE_INTEGER + 2,
      -Number.MAX_SAFE_INTEGER - 2,
      2 ** 63,
      1e21,
      1e308,
      Number.MIN_VALUE,
    ),
    fc.constantFrom(String(max), `${min}`, '1e3', 'NaN'),
  );
}

/** Strings outside ASCII: any code point, graphemes, lone surrogates, controls, very long UTF-8. */
export const unicodeText = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }),
  fc.constantFrom(
    '\ud800',
    'a\udfff',
    '\u0000',
    '\u202e\u202d',
    '\ufeffname',
    'é'.repeat(199),
    '😀'.repeat(100),
    'ǅ̸̛',
    'a\r\nb',
  ),
);
