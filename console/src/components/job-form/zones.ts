/**
 * Time zones for the form: the zones the browser knows, the browser's own, and the conversion
 * between a wall-clock time in a zone (what a `datetime-local` input holds) and an ISO instant
 * (what the API takes and answers), daylight-saving time included.
 */
import { browserZone, formatInZone } from '../format.ts';

/** Every IANA zone the browser knows, UTC included, sorted. */
export function timeZones(): string[] {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return [...new Set(['UTC', ...zones, browserZone()])].sort();
}

export { browserZone, formatInZone };

const partsFormats = new Map<string, Intl.DateTimeFormat>();

function partsFormat(zone: string): Intl.DateTimeFormat {
  let format = partsFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    partsFormats.set(zone, format);
  }
  return format;
}

/** The wall-clock fields of an instant in a zone. */
function wallFields(epochMs: number, zone: string): Record<string, number> {
  const fields: Record<string, number> = {};
  for (const part of partsFormat(zone).formatToParts(new Date(epochMs))) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  return fields;
}

/** How far the zone's wall clock is ahead of UTC at an instant, in ms. */
function offsetMs(epochMs: number, zone: string): number {
  const f = wallFields(epochMs, zone);
  const wallAsUtc = Date.UTC(f.year ?? 1970, (f.month ?? 1) - 1, f.day ?? 1, f.hour ?? 0, f.minute ?? 0, f.second ?? 0);
  return wallAsUtc - Math.floor(epochMs / 1000) * 1000;
}

const DAY_MS = 86_400_000;
const WALL_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/**
 * `2030-06-01T09:00` in Europe/Berlin → `2030-06-01T07:00:00.000Z`; undefined when the text is not
 * a wall-clock time. A time skipped by a spring-forward gap moves on by the gap, as clocks do; a
 * time that occurs twice (fall back) is its first pass.
 */
export function wallTimeToInstant(wallTime: string, zone: string): string | undefined {
  const match = WALL_TIME.exec(wallTime);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second] = match.map(Number) as number[];
  const wallAsUtc = Date.UTC(year ?? 0, (month ?? 1) - 1, day ?? 1, hour ?? 0, minute ?? 0, second || 0);
  if (Number.isNaN(wallAsUtc)) return undefined;
  // The zone's offsets a day either side: one instant per offset, kept when it shows this wall time.
  const candidates = [...new Set([offsetMs(wallAsUtc - DAY_MS, zone), offsetMs(wallAsUtc + DAY_MS, zone)])].map(
    (offset) => wallAsUtc - offset,
  );
  const valid = candidates.filter((instant) => instant + offsetMs(instant, zone) === wallAsUtc);
  // Twice (fall back): the first pass. Never (a spring-forward gap): the later reading, which is
  // the wall time carried forward by the gap (02:30 on a 02:00→03:00 night reads 03:30).
  const landed = valid.length > 0 ? Math.min(...valid) : Math.max(...candidates);
  return new Date(landed).toISOString();
}

const pad = (n: number | undefined) => String(n ?? 0).padStart(2, '0');

/** An instant as the wall-clock time a `datetime-local` input shows in a zone (seconds kept). */
export function instantToWallTime(iso: string, zone: string): string {
  const f = wallFields(Date.parse(iso), zone);
  return `${f.year}-${pad(f.month)}-${pad(f.day)}T${pad(f.hour)}:${pad(f.minute)}:${pad(f.second)}`;
}
