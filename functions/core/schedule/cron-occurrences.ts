// Cron occurrences in an IANA time zone, with an explicit daylight-saving policy.
//
// The occurrences of (expression, zone) are a fixed set of instants, whatever window is asked about:
// 1. The expression is matched against wall-clock readings (cron-parser in UTC, where no DST exists).
// 2. Each matching reading becomes real instants:
//    - it happens once: that instant;
//    - it falls in the spring-forward gap (02:30 on 2026-03-08 in New York): a job whose hour field names
//      specific hours (`30 2 * * *`) fires ONCE at the first valid instant after the gap (03:00 local), so a
//      daily job never silently misses a day; several readings in one gap coalesce into that single run,
//      also with a run already due then. A job whose hour field is every hour (`0 * * * *`, `*/15 * * * *`)
//      skips the readings: the gap holds no real time and such a job already fires in every real hour;
//    - it happens twice on the fall-back day (01:30 on 2026-11-01 in New York): a job naming specific hours
//      fires ONCE, at the first of the two instants (still on summer time); an every-hour job fires at both,
//      because every real hour passes: `0 * * * *` fires at 01:00 EDT and again at 01:00 EST, and
//      `*/15 * * * *` keeps firing every 15 real minutes through the repeated hour.
//    This is ISC cron's rule (fixed-time jobs adjust, wildcard jobs follow real time), keyed on the hour field.
//
// cron-parser's own `tz` iteration is deliberately not used. In v5.10.5 it shifts a gap reading by the
// gap's length (02:30 fires at 03:30, and `*/15 2 * * *` fires four times in hour 3), and its answer depends
// on where iteration starts: starting at 01:15 EST it returns 01:30 EST for `30 1 * * *` although 01:30 EDT
// already fired, and starting at 03:10 EDT it no longer returns the shifted 03:30. A scanner that asks from
// different points would then fire twice or never.
import { wallClockMatches } from './cron-expression.ts';
import { offsetsAround, resolveWallTime, type WallTimeResolution, wallClockAt } from './time-zone.ts';

/** The real instants a matching wall-clock reading fires at, under the DST policy above. */
function instantsOf(resolution: WallTimeResolution, everyHour: boolean): number[] {
  switch (resolution.kind) {
    case 'unique':
      return [resolution.at];
    case 'repeated':
      return everyHour ? [resolution.first, resolution.second] : [resolution.first];
    case 'skipped':
      return everyHour ? [] : [resolution.gapEnd];
  }
}

function insertSortedUnique(sorted: number[], value: number): void {
  let index = sorted.length;
  while (index > 0 && (sorted[index - 1] as number) > value) index--;
  if (sorted[index - 1] !== value) sorted.splice(index, 0, value);
}

/** Every occurrence of the cron expression at or after `fromInclusive`, ascending and without duplicates. */
export function* cronOccurrencesFrom(
  expression: string,
  everyHour: boolean,
  timeZone: string,
  fromInclusive: number,
): Generator<number, void, undefined> {
  // An occurrence at or after `from` comes from a reading no earlier than from's own reading minus the size
  // of a nearby offset change (a gap reading fires later than it reads; a repeated hour reads earlier).
  const near = offsetsAround(timeZone, fromInclusive);
  const firstReading = wallClockAt(timeZone, fromInclusive) - Math.abs(near.after - near.before);
  const nextReading = wallClockMatches(expression, firstReading - 1);
  // Instants found but not yet safe to yield: in a repeated hour, later readings can map to earlier instants.
  const pending: number[] = [];
  let lastYielded = Number.NEGATIVE_INFINITY;
  for (let reading = nextReading(); reading !== undefined; reading = nextReading()) {
    const around = offsetsAround(timeZone, reading);
    for (const instant of instantsOf(resolveWallTime(timeZone, reading, around), everyHour)) {
      if (instant >= fromInclusive && instant > lastYielded) insertSortedUnique(pending, instant);
    }
    // Any later reading r' > reading maps to an instant >= r' - offset > reading - (largest nearby offset).
    const settledUpTo = reading - Math.max(around.before, around.after);
    while (pending.length > 0 && (pending[0] as number) <= settledUpTo) {
      lastYielded = pending.shift() as number;
      yield lastYielded;
    }
  }
  yield* pending;
}
