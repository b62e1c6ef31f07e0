/**
 * Strict ISO-8601 instants for the API. A date-time WITHOUT a zone designator is rejected: `Date.parse` would
 * read it in the server's local zone (UTC on Lambda, something else on a laptop), so the same request could
 * mean different instants. Callers must send `Z` or an offset such as `+02:00`. `Date.parse` is not used
 * either, because it accepts impossible dates (2026-02-30 becomes 2 March) and `24:00`.
 * Instants outside the calendar range Chronos stores (bounds.ts) are refused here, so no caller
 * can carry one further.
 */
import { INSTANT_RANGE_REASON, isRepresentableInstant } from '../bounds.ts';

const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * The instant of a request field that must be a zoned ISO-8601 string, or undefined once `fail`
 * was told why it is not one (any other type, a wrong format, outside the stored range).
 */
export function isoInstantField(value: unknown, fail: (reason: string) => void): number | undefined {
  if (typeof value !== 'string') return void fail('must be an ISO-8601 date-time string');
  const parsed = parseIsoInstant(value);
  return parsed.ok ? parsed.at : void fail(parsed.reason);
}

/**
 * Epoch ms of a zoned ISO-8601 date-time (`2026-03-08T02:30:00-05:00`, `...Z`) inside the stored calendar
 * range; fractions beyond ms truncate.
 */
export function parseIsoInstant(text: string): { ok: true; at: number } | { ok: false; reason: string } {
  const match = ISO_INSTANT.exec(text);
  if (!match) {
    return /T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text)
      ? { ok: false, reason: 'must include a zone designator (Z or ±hh:mm)' }
      : { ok: false, reason: 'must be an ISO-8601 date-time such as 2026-03-08T09:00:00Z' };
  }
  const [, year, month, day, hour, minute, second = '0', fraction = '', zone, sign, offsetHours, offsetMinutes] = match;
  const [y, mo, d, h, mi, sec] = [year, month, day, hour, minute, second].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const millis = Number(fraction.padEnd(3, '0').slice(0, 3));
  // Not Date.UTC: it reads years 0-99 as 1900-1999, so 0099-12-31 would pass for 1999-12-31 and
  // fail the round trip below as an impossible date instead of an instant outside the range.
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, sec, millis);
  const wallClock = date.getTime();
  // The date rolls overflow into the next unit (30 February -> 2 March); a round trip exposes it.
  const check = new Date(wallClock);
  const sameDate = check.getUTCFullYear() === y && check.getUTCMonth() === mo - 1 && check.getUTCDate() === d;
  if (!sameDate || h > 23 || mi > 59 || sec > 59) return { ok: false, reason: 'is not a valid calendar date and time' };
  const offsetMs =
    zone === 'Z' ? 0 : (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000;
  if (Number(offsetHours) > 23 || Number(offsetMinutes) > 59) return { ok: false, reason: 'has an invalid UTC offset' };
  const at = wallClock - offsetMs;
  if (!isRepresentableInstant(at)) return { ok: false, reason: INSTANT_RANGE_REASON };
  return { ok: true, at };
}
