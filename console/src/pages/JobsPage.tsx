/**
 * The tenant's jobs: filters (status, schedule type, name prefix) and the page cursor live in the
 * URL, so a reload or a shared link shows the same view; the cursors of the pages before live in
 * the history entry's state, so Previous and the browser's Back both walk back. Rows can be
 * selected for bulk pause, resume and cancel.
 */
import type { JobListQuery } from '@chronos/client';
import { useEffect, useMemo, useState } from 'react';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { useJobList } from '../api/jobs.ts';
import { BulkActions } from '../components/jobs-list/BulkActions.tsx';
import { type Filters, JOB_STATUSES, JobsFilters, SCHEDULE_TYPES } from '../components/jobs-list/JobsFilters.tsx';
import { JobsTable } from '../components/jobs-list/JobsTable.tsx';
import { Empty, ErrorState, Loading } from '../components/QueryState.tsx';

export const JOBS_PAGE_SIZE = 20;

/** A URL value the API accepts, or nothing (a hand-edited URL must not break the page). */
function oneOf<T extends string>(value: string | null, allowed: readonly T[]): T | undefined {
  return allowed.includes(value as T) ? (value as T) : undefined;
}

/** The cursors of the pages before this one ('' = the first page), kept in the history entry. */
function trailOf(state: unknown): string[] {
  const trail = (state as { trail?: unknown } | null)?.trail;
  return Array.isArray(trail) ? trail.filter((cursor): cursor is string => typeof cursor === 'string') : [];
}

const BUTTON = 'rounded border border-slate-300 bg-white px-3 py-1 text-sm hover:bg-slate-100 disabled:opacity-50';

export function JobsPage() {
  const [params] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const status = oneOf(params.get('status'), JOB_STATUSES);
  const type = oneOf(params.get('type'), SCHEDULE_TYPES);
  const name = params.get('name') ?? '';
  const cursor = params.get('cursor') ?? '';
  const trail = trailOf(location.state);

  const query = useMemo<JobListQuery>(
    () => ({
      limit: JOBS_PAGE_SIZE,
      ...(status ? { status } : {}),
      ...(type ? { type } : {}),
      ...(name ? { name } : {}),
      ...(cursor ? { cursor } : {}),
    }),
    [status, type, name, cursor],
  );
  const list = useJobList(query);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  // Another page or other filters: a selection of rows no longer shown would act unseen.
  // biome-ignore lint/correctness/useExhaustiveDependencies: cleared whenever the query changes
  useEffect(() => setSelected(new Set()), [query]);

  function go(next: { filters?: Filters; cursor?: string }, options: { replace?: boolean; trail?: string[] } = {}) {
    const search = new URLSearchParams();
    const filters = next.filters ?? { status: status ?? '', type: type ?? '', name };
    if (filters.status) search.set('status', filters.status);
    if (filters.type) search.set('type', filters.type);
    if (filters.name) search.set('name', filters.name);
    if (next.cursor) search.set('cursor', next.cursor);
    navigate({ search: search.toString() }, { replace: options.replace, state: { trail: options.trail ?? [] } });
  }

  const jobs = list.data?.items ?? [];
  const nextCursor = list.data?.cursor ?? null;
  const filtered = Boolean(status || type || name);
  const selectedJobs = jobs.filter((job) => selected.has(job.jobId));

  return (
    <div>
      <div className="mb-4 flex items-center justify-between">
        <h1 className="text-xl font-semibold">Jobs</h1>
        <Link
          to="/jobs/new"
          className="rounded bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700"
        >
          New job
        </Link>
      </div>
      <JobsFilters
        filters={{ status: status ?? '', type: type ?? '', name }}
        onChange={(filters, typing) => go({ filters }, { replace: typing })}
      />
      <BulkActions jobs={selectedJobs} onDone={() => setSelected(new Set())} />
      {list.isError && <ErrorState what="the jobs" error={list.error} retry={() => list.refetch()} />}
      {list.isPending && <Loading what="the jobs" />}
      {list.isSuccess && jobs.length === 0 && (
        <Empty>
          {nextCursor
            ? 'No matching jobs on this page; there are more to look through.'
            : filtered
              ? 'No jobs match these filters.'
              : 'No jobs yet. Create one with “New job”.'}
        </Empty>
      )}
      {jobs.length > 0 && (
        <div aria-busy={list.isPlaceholderData} className={list.isPlaceholderData ? 'opacity-60' : undefined}>
          <JobsTable jobs={jobs} selected={selected} onSelect={setSelected} />
        </div>
      )}
      <nav aria-label="Pages" className="mt-3 flex items-center gap-2">
        <button
          type="button"
          disabled={!cursor}
          onClick={() => go({ cursor: trail.at(-1) }, { trail: trail.slice(0, -1) })}
          className={BUTTON}
        >
          {cursor && trail.length === 0 ? 'First page' : 'Previous'}
        </button>
        <button
          type="button"
          disabled={!nextCursor || list.isPlaceholderData}
          onClick={() => go({ cursor: nextCursor ?? undefined }, { trail: [...trail, cursor] })}
          className={BUTTON}
        >
          Next
        </button>
        {list.isFetching && (
          <span role="status" className="text-sm text-slate-600">
            Refreshing…
          </span>
        )}
      </nav>
    </div>
  );
}
