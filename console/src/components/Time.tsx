/**
 * An instant in the browser's zone, UTC on hover (the `title`), in a <time> element whose
 * `dateTime` is the ISO instant (tests and screen readers read it).
 */
const LOCAL = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

export function formatLocal(iso: string): string {
  return LOCAL.format(new Date(iso));
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
