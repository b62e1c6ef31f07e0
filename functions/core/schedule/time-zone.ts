/**
 * IANA time-zone arithmetic on top of Intl, with no dependency beyond the runtime's tz database.
 *
 * A "wall-clock" value is a local date-time encoded as if it were UTC (`Date.UTC(y, m, d, h, mi, s)`),
 * which lets cron matching run on a plain timeline without DST, while this file maps wall clocks to
 * real instants and back. Assumes at most one offset change in any 48-hour window, which holds for every
 * zone in current tz data.
 */

const DAY_MS = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The canonical spelling of an IANA zone Intl knows (e.g. `america/new_york` -> `America/New_York`), else undefined. */
export function canonicalTimeZone(name: string): string | undefined {
  if (name.trim() === '') return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** The zone's UTC offset in milliseconds at `instant` (local = instant + offset), to whole-second precision. */
export function offsetAt(timeZone: string, instant: number): number {
  if (timeZone === 'UTC') return 0;
  const wholeSecond = Math.floor(instant / 1000) * 1000;
  const fields: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(wholeSecond)) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  const local = Date.UTC(
    fields.year ?? 1970,
    (fields.month ?? 1) - 1,
    fields.day ?? 1,
    fields.hour ?? 0,
    fields.minute ?? 0,
    fields.second ?? 0,
  );
  return local - wholeSecond;
}

/** The wall-clock reading (encoded as UTC) of `instant` in `timeZone`. */
export function wallClockAt(timeZone: string, instant: number): number {
  return instant + offsetAt(timeZone, instant);
}

/** How one wall-clock reading maps onto real instants on its day. */
export type WallTimeResolution =
  | { kind: 'unique'; at: number }
  /** Fall-back: the reading happens twice; `first` is under the earlier (summer) offset. */
  | { kind: 'repeated'; first: number; second: number }
  /** Spring-forward: the reading never happens; `gapEnd` is the first real instant after the gap. */
  | { kind: 'skipped'; gapEnd: number };

/** The offsets in force a day either side of `at`; every instant within ±14 h of `at` uses one of them. */
export function offsetsAround(timeZone: string, at: number): { before: number; after: number } {
  return { before: offsetAt(timeZone, at - DAY_MS), after: offsetAt(timeZone, at + DAY_MS) };
}

/** Maps a wall-clock reading to the real instant(s) it denotes in `timeZone`. */
export function resolveWallTime(
  timeZone: string,
  wallClock: number,
  { before, after } = offsetsAround(timeZone, wallClock),
): WallTimeResolution {
  const candidates = before === after ? [before] : [before, after];
  const valid = candidates
    .map((offset) => wallClock - offset)
    .filter((instant) => offsetAt(timeZone, instant) === wallClock - instant)
    .sort((a, b) => a - b);
  const [first, second] = valid;
  if (first !== undefined && second !== undefined) return { kind: 'repeated', first, second };
  if (first !== undefined) return { kind: 'unique', at: first };
  return { kind: 'skipped', gapEnd: transitionBetween(timeZone, wallClock - after, wallClock - before, after) };
}

/** Smallest whole second in (lo, hi] whose offset is `offsetAfter`; the offset at `lo` is the old one. */
function transitionBetween(timeZone: string, lo: number, hi: number, offsetAfter: number): number {
  let low = Math.floor(lo / 1000);
  let high = Math.ceil(hi / 1000);
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (offsetAt(timeZone, middle * 1000) === offsetAfter) high = middle;
    else low = middle;
  }
  return high * 1000;
}
