/**
 * The run history's filters: status (applied at once) and a scheduled-time range (applied with the
 * button). Times are entered in the browser's zone and kept in the URL as ISO instants, so a shared
 * link shows the same runs wherever it is opened.
 */
import type { Run } from '@chronos/client';
import { type FormEvent, useEffect, useState } from 'react';
import { fromLocalInput, toLocalInput } from './range-input.ts';

export const RUN_STATUSES: readonly Run['status'][] = [
  'QUEUED',
  'RUNNING',
  'SUCCEEDED',
  'FAILED',
  'TIMED_OUT',
  'CANCELLED',
  'SKIPPED',
  'DEAD_LETTERED',
];

export interface RunFilter {
  status?: Run['status'];
  from?: string;
  to?: string;
}

const FIELD = 'mt-1 block rounded border border-slate-300 bg-white px-2 py-1 text-sm';

export function RunFilters({ filter, onChange }: { filter: RunFilter; onChange: (next: RunFilter) => void }) {
  const [from, setFrom] = useState(toLocalInput(filter.from));
  const [to, setTo] = useState(toLocalInput(filter.to));
  useEffect(() => setFrom(toLocalInput(filter.from)), [filter.from]);
  useEffect(() => setTo(toLocalInput(filter.to)), [filter.to]);
  const backwards = from !== '' && to !== '' && from > to;

  function apply(event: FormEvent) {
    event.preventDefault();
    if (backwards) return;
    onChange({ ...filter, from: fromLocalInput(from), to: fromLocalInput(to, 'end') });
  }

  return (
    <form onSubmit={apply} className="flex flex-wrap items-end gap-3" aria-label="Filter runs">
      <label className="text-sm">
        Status
        <select
          className={FIELD}
          value={filter.status ?? ''}
          onChange={(event) =>
            onChange({ ...filter, status: (event.target.value || undefined) as Run['status'] | undefined })
          }
        >
          <option value="">All statuses</option>
          {RUN_STATUSES.map((status) => (
            <option key={status} value={status}>
              {status}
            </option>
          ))}
        </select>
      </label>
      <label className="text-sm">
        Scheduled from
        <input
          type="datetime-local"
          step="1"
          className={FIELD}
          value={from}
          onChange={(event) => setFrom(event.target.value)}
        />
      </label>
      <label className="text-sm">
        Scheduled to
        <input
          type="datetime-local"
          step="1"
          className={FIELD}
          value={to}
          onChange={(event) => setTo(event.target.value)}
          aria-invalid={backwards || undefined}
          aria-describedby={backwards ? 'range-problem' : undefined}
        />
      </label>
      <button
        type="submit"
        className="rounded bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700"
      >
        Apply range
      </button>
      {(filter.status || filter.from || filter.to) && (
        <button
          type="button"
          className="rounded border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-100"
          onClick={() => onChange({})}
        >
          Clear filters
        </button>
      )}
      {backwards && (
        <p id="range-problem" role="alert" className="w-full text-sm text-red-700">
          The end of the range is before its start.
        </p>
      )}
    </form>
  );
}
