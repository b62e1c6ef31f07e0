/** A job's or a run's status as a coloured badge (text first: colour is never the only signal). */
const TONES: Readonly<Record<string, string>> = {
  ACTIVE: 'bg-emerald-100 text-emerald-900',
  SUCCEEDED: 'bg-emerald-100 text-emerald-900',
  COMPLETED: 'bg-sky-100 text-sky-900',
  RUNNING: 'bg-sky-100 text-sky-900',
  QUEUED: 'bg-slate-200 text-slate-800',
  PENDING: 'bg-white text-slate-800 ring-1 ring-slate-300',
  PAUSED: 'bg-amber-100 text-amber-900',
  SKIPPED: 'bg-slate-200 text-slate-800',
  CANCELLED: 'bg-slate-200 text-slate-800',
  FAILED: 'bg-red-100 text-red-900',
  TIMED_OUT: 'bg-red-100 text-red-900',
  DEAD_LETTERED: 'bg-red-200 text-red-950',
};

export function StatusBadge({ status }: { status: string }) {
  return (
    <span className={`inline-block rounded px-2 py-0.5 text-xs font-medium ${TONES[status] ?? 'bg-slate-200'}`}>
      {status}
    </span>
  );
}
