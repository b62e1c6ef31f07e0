/**
 * Health (/health): the caller's jobs and runs over a window (`window` in the URL), the runs over
 * time as charts, and for the operator (admin token) the system view and every tenant's numbers,
 * or one tenant's (`tenantId` in the URL). Each part is its own call: one failing leaves the others.
 */
import { lazy, type ReactNode, Suspense } from 'react';
import { useSearchParams } from 'react-router';
import { useStats, useSystem, useTimeseries } from '../api/monitoring.ts';
import { StatsSummary } from '../components/health/StatsSummary.tsx';
import { SystemView } from '../components/health/SystemView.tsx';
import { TenantFilter } from '../components/health/TenantFilter.tsx';
import { type StatsWindow, WINDOWS, WindowPicker } from '../components/health/WindowPicker.tsx';
import { ErrorState, Loading } from '../components/QueryState.tsx';
import { useSession } from '../session.tsx';

const HealthCharts = lazy(() => import('../components/charts/HealthCharts.tsx'));

function windowFrom(params: URLSearchParams): StatsWindow {
  const value = params.get('window');
  return (WINDOWS as readonly string[]).includes(value ?? '') ? (value as StatsWindow) : '1h';
}

function Part({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className="mt-6">
      <h2 id={id} className="mb-2 text-lg font-semibold">
        {title}
      </h2>
      {children}
    </section>
  );
}

export function HealthPage() {
  const { scope } = useSession();
  const operator = scope === 'admin';
  const [params, setParams] = useSearchParams();
  const window = windowFrom(params);
  const tenantId = operator ? (params.get('tenantId') ?? '') : '';
  const stats = useStats({ window, ...(tenantId ? { tenantId } : {}) });
  // The series has 1h and 24h windows: 5 minutes are charted within the last hour.
  const seriesWindow = window === '24h' ? '24h' : '1h';
  const series = useTimeseries({ window: seriesWindow, ...(tenantId ? { tenantId } : {}) });
  const system = useSystem(operator);

  function set(key: string, value: string) {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next);
  }

  return (
    <>
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-xl font-semibold">Health</h1>
          <p className="text-sm text-slate-600">
            {operator ? 'Every tenant, and the machinery that runs them.' : 'Your jobs and their runs.'} Refreshed every
            15 s.
          </p>
        </div>
        <div className="flex flex-wrap items-end gap-4">
          {operator && <TenantFilter value={tenantId} onChange={(next) => set('tenantId', next)} />}
          <WindowPicker value={window} onChange={(next) => set('window', next === '1h' ? '' : next)} />
        </div>
      </div>

      <Part id="stats-heading" title={`Last ${window}`}>
        {stats.isError && <ErrorState what="the stats" error={stats.error} retry={() => void stats.refetch()} />}
        {stats.isPending ? <Loading what="the stats" /> : stats.data && <StatsSummary stats={stats.data} />}
      </Part>

      <Part id="charts-heading" title={`Over the last ${seriesWindow === '1h' ? 'hour' : '24 hours'}`}>
        {window === '5m' && (
          <p className="mb-2 text-sm text-slate-600">The charts show the last hour; the 5 minutes are its right end.</p>
        )}
        {series.isError && <ErrorState what="the charts" error={series.error} retry={() => void series.refetch()} />}
        {series.isPending ? (
          <Loading what="the charts" />
        ) : (
          series.data && (
            <Suspense fallback={<Loading what="the charts" />}>
              <HealthCharts series={series.data} />
            </Suspense>
          )
        )}
      </Part>

      {operator && (
        <Part id="system-heading" title="System">
          {system.isError && (
            <ErrorState what="the system view" error={system.error} retry={() => void system.refetch()} />
          )}
          {system.isPending ? <Loading what="the system view" /> : system.data && <SystemView system={system.data} />}
        </Part>
      )}
    </>
  );
}
