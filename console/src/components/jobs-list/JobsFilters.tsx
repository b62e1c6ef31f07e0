/** The list's filters: status and schedule type apply at once, the name prefix once typing pauses. */
import { useEffect, useId, useState } from 'react';
import { useDebounced } from '../job-form/use-debounced.ts';

export const JOB_STATUSES = ['ACTIVE', 'PAUSED', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export const SCHEDULE_TYPES = ['once', 'interval', 'cron'] as const;

export interface Filters {
  status: string;
  type: string;
  name: string;
}

interface JobsFiltersProps {
  filters: Filters;
  /** `typing`: a name keystroke (replaces the history entry instead of adding one per letter). */
  onChange: (filters: Filters, typing: boolean) => void;
}

const CONTROL = 'mt-1 block h-9 rounded border border-slate-400 bg-white px-2 text-sm';

export function JobsFilters({ filters, onChange }: JobsFiltersProps) {
  const id = useId();
  const [name, setName] = useState(filters.name);
  const settledName = useDebounced(name, 300);
  // Back/forward or a link changed the URL: show its name.
  useEffect(() => setName(filters.name), [filters.name]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a settled name edit applies it
  useEffect(() => {
    if (settledName !== filters.name) onChange({ ...filters, name: settledName }, true);
  }, [settledName]);

  return (
    <search aria-label="Filter jobs" className="mb-3 flex flex-wrap items-end gap-3">
      <div>
        <label htmlFor={`${id}-status`} className="text-sm font-medium">
          Status
        </label>
        <select
          id={`${id}-status`}
          value={filters.status}
          onChange={(event) => onChange({ ...filters, status: event.target.value }, false)}
          className={CONTROL}
        >
          <option value="">Any status</option>
          {JOB_STATUSES.map((status) => (
            <option key={status} value={status}>
              {status}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor={`${id}-type`} className="text-sm font-medium">
          Schedule type
        </label>
        <select
          id={`${id}-type`}
          value={filters.type}
          onChange={(event) => onChange({ ...filters, type: event.target.value }, false)}
          className={CONTROL}
        >
          <option value="">Any type</option>
          {SCHEDULE_TYPES.map((type) => (
            <option key={type} value={type}>
              {type}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor={`${id}-name`} className="text-sm font-medium">
          Name starts with
        </label>
        <input
          id={`${id}-name`}
          type="search"
          value={name}
          onChange={(event) => setName(event.target.value)}
          className={`${CONTROL} w-56`}
        />
      </div>
    </search>
  );
}
