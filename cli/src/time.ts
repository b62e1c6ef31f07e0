/**
 * Times as humans read them: in the local zone (the `TZ` environment variable when set), to the
 * second, with the zone's short name — `2026-11-24 16:08:31 CET`. Scripts get ISO-8601 from --json.
 */
const formatter = () =>
  new Intl.DateTimeFormat('en-GB', {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
  });

/** An ISO instant (or epoch ms) in the local zone; `-` for none. */
export function localTime(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '-';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  const part = Object.fromEntries(
    formatter()
      .formatToParts(date)
      .map((p) => [p.type, p.value]),
  );
  return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute}:${part.second} ${part.timeZoneName}`;
}

/** Milliseconds as a short duration: `850 ms`, `4.2 s`, `3 min`. */
export function shortDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '-';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 60_000)} min`;
}
