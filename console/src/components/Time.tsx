/**
 * An instant in the browser's zone, UTC on hover (the `title`), in a <time> element whose
 * `dateTime` is the ISO instant (tests and screen readers read it).
 */
import { browserZone, formatInZone } from './format.ts';

export function formatLocal(iso: string): string {
  return formatInZone(iso, browserZone());
}

export function formatUtc(iso: string): string {
  return `${new Date(iso)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, '')} UTC`;
}

export function Time({ iso, fallback = '—' }: { iso: string | null | undefined; fallback?: string }) {
  if (!iso) return <span className="text-slate-500">{fallback}</span>;
  return (
    <time dateTime={iso} title={formatUtc(iso)} className="whitespace-nowrap">
      {formatLocal(iso)}
    </time>
  );
}
