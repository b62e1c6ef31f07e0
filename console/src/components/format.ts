/** Small formatters shared by every page: durations, instants in a zone, shares. */

/** Milliseconds for people: `850 ms`, `2.4 s`, `3 min 5 s`; `—` when unknown. */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1_000)} s`;
}

/**
 * An instant in an IANA zone, day to second: `25 Nov 2026, 09:00:00`; with `weekday` (`Wed, …`) and
 * `zoneName` (`… CET`) when asked. Every time the console shows goes through here.
 */
export function formatInZone(
  iso: string,
  timeZone: string,
  { weekday = false, zoneName = false }: { weekday?: boolean; zoneName?: boolean } = {},
): string {
  return new Intl.DateTimeFormat(undefined, {
    timeZone,
    ...(weekday ? { weekday: 'short' } : {}),
    year: 'numeric',
    month: 'short',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    ...(zoneName ? { timeZoneName: 'short' } : {}),
  }).format(new Date(iso));
}

/** The browser's own zone name, e.g. `Europe/Berlin` (UTC when the browser names none). */
export function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** A share (0–1) as a percentage, `—` when there is nothing to divide. */
export function formatShare(share: number | null | undefined): string {
  return share === null || share === undefined ? '—' : `${(share * 100).toFixed(1)} %`;
}

/** A page size from the URL (`limit`), 1–100 as the API allows, else `fallback`. */
export function pageSize(params: URLSearchParams, fallback = 20): number {
  const limit = Number(params.get('limit'));
  return Number.isInteger(limit) && limit >= 1 && limit <= 100 ? limit : fallback;
}
