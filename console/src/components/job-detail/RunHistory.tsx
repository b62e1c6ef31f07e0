/**
 * A job's run history: filters and the page in the URL (`status`, `from`, `to`, `cursor`, `limit`),
 * the runs of the page as a table and as a timing chart. Refreshes itself while a run shown has
 * not ended (useRuns).
 */
import type { Job, RunListQuery } from '@chronos/client';
import { lazy, Suspense } from 'react';
import { useSearchParams } from 'react-router';
import { errorMessage } from '../../api/result.ts';
import { useCancelRun, useRuns } from '../../api/runs.ts';
import { CursorPager } from '../CursorPager.tsx';
import { pageSize } from '../format.ts';
import { Empty, ErrorState, Loading } from '../QueryState.tsx';
import { CancelRunButton } from './CancelRunButton.tsx';
import { RUN_STATUSES, type RunFilter, RunFilters } from './RunFilters.tsx';
import { RunTable } from './RunTable.tsx';

const RunTimingChart = lazy(() => import('../charts/RunTimingChart.tsx'));

function filterFrom(params: URLSearchParams): RunFilter {
  const status = params.get('status');
  return {
    ...(status && (RUN_STATUSES as readonly string[]).includes(status)
      ? { status: status as RunFilter['status'] }
      : {}),
    ...(params.get('from') ? { from: params.get('from') as string } : {}),
    ...(params.get('to') ? { to: params.get('to') as string } : {}),
  };
}

export function RunHistory({ job }: { job: Job }) {
  const [params, setParams] = useSearchParams();
  const filter = filterFrom(params);
  const cursor = params.get('cursor') ?? undefined;
  const limit = pageSize(params);
  const query: RunListQuery = { ...filter, limit, ...(cursor ? { cursor } : {}) };
  const runs = useRuns(job.jobId, query, job.status === 'ACTIVE');
  const cancel = useCancelRun(job.jobId);

  /** A new filter starts again from the first page (keeping a page size given in the URL). */
  function setFilter(next: RunFilter) {
    const updated = new URLSearchParams(params.has('limit') ? { limit: String(limit) } : {});
    for (const [key, value] of Object.entries(next)) if (value) updated.set(key, value);
    setParams(updated);
  }
  function setCursor(next: string | undefined) {
    const updated = new URLSearchParams(params);
    if (next) updated.set('cursor', next);
    else updated.delete('cursor');
    setParams(updated);
  }

  const items = runs.data?.items ?? [];
  const filtered = Boolean(filter.status || filter.from || filter.to);
  return (
    <section aria-labelledby="runs-heading" className="mt-8">
      <h2 id="runs-heading" className="mb-3 text-lg font-semibold">
        Run history
      </h2>
      <RunFilters filter={filter} onChange={setFilter} />
      <div aria-live="polite" className="mt-2 text-sm">
        {cancel.isSuccess && (
          <span className="text-emerald-800">
            {cancel.data.status === 'CANCELLED'
              ? 'Run cancelled.'
              : 'Cancel requested: the worker hears it on its next heartbeat.'}
          </span>
        )}
      </div>
      {cancel.isError && (
        <p role="alert" className="mt-1 rounded border border-red-300 bg-red-50 p-2 text-sm text-red-900">
          Could not cancel the run: {errorMessage(cancel.error)}
        </p>
      )}
      {runs.isError && <ErrorState what="the runs" error={runs.error} retry={() => void runs.refetch()} />}
      {runs.isPending ? (
        <Loading what="runs" />
      ) : items.length === 0 ? (
        !runs.isError && (
          <Empty>
            {filtered
              ? 'No run matches these filters on this page.'
              : 'No runs yet: they appear here as the job fires.'}
          </Empty>
        )
      ) : (
        <>
          <div className="mt-4 rounded border border-slate-200 bg-white p-3">
            <h3 className="mb-2 text-sm font-semibold">Duration and start lag per run</h3>
            <Suspense fallback={<Loading what="the chart" />}>
              <RunTimingChart runs={items} slaSeconds={job.slaSeconds} />
            </Suspense>
          </div>
          <div className="mt-4 rounded border border-slate-200 bg-white">
            <RunTable
              runs={items}
              caption={`Runs of ${job.name ?? job.jobId}, newest first`}
              actions={(run) => (
                <CancelRunButton run={run} busy={cancel.isPending} onCancel={(chosen) => cancel.mutate(chosen.runId)} />
              )}
            />
          </div>
        </>
      )}
      <CursorPager label="Run pages" cursor={cursor} nextCursor={runs.data?.cursor} onGo={setCursor} />
    </section>
  );
}
