/**
 * The stats of a window: headline numbers, jobs and runs by status, and the latency percentiles
 * (bucket upper bounds, as the API reports them: "at most").
 */
import type { MonitoringStats } from '@chronos/client';
import { formatMs, formatShare } from '../format.ts';
import { Time } from '../Time.tsx';

function Figure({ label, value, hint }: { label: string; value: string | number; hint?: string }) {
  return (
    <div className="rounded border border-slate-200 bg-white p-3">
      <dt className="text-xs text-slate-600">{label}</dt>
      <dd className="mt-1 text-2xl font-semibold tabular-nums">{value}</dd>
      {hint && <dd className="text-xs text-slate-600">{hint}</dd>}
    </div>
  );
}

function CountTable({ caption, counts }: { caption: string; counts: Record<string, number | undefined> }) {
  return (
    <table className="w-full text-left text-sm">
      <caption className="mb-1 text-left text-sm font-semibold">{caption}</caption>
      <thead className="sr-only">
        <tr>
          <th scope="col">Status</th>
          <th scope="col">Count</th>
        </tr>
      </thead>
      <tbody>
        {Object.entries(counts).map(([status, count]) => (
          <tr key={status} className="border-t border-slate-100">
            <th scope="row" className="py-1 font-normal">
              {status}
            </th>
            <td className="py-1 text-right tabular-nums">{count ?? 0}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const upTo = (ms: number | null, count: number) => (count === 0 ? '—' : ms === null ? '> 300 s' : `≤ ${formatMs(ms)}`);

function Percentiles({ stats }: { stats: MonitoringStats }) {
  const rows = [
    { name: 'Start lag', latency: stats.startLagMs },
    { name: 'Duration', latency: stats.durationMs },
  ];
  return (
    <table className="w-full text-left text-sm">
      <caption className="mb-1 text-left text-sm font-semibold">Percentiles over the window</caption>
      <thead className="text-xs text-slate-600">
        <tr>
          <th scope="col" className="py-1 font-medium">
            Measure
          </th>
          <th scope="col" className="py-1 text-right font-medium">
            Runs
          </th>
          <th scope="col" className="py-1 text-right font-medium">
            p50
          </th>
          <th scope="col" className="py-1 text-right font-medium">
            p95
          </th>
          <th scope="col" className="py-1 text-right font-medium">
            p99
          </th>
          <th scope="col" className="py-1 text-right font-medium">
            Over 300 s
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map(({ name, latency }) => (
          <tr key={name} className="border-t border-slate-100">
            <th scope="row" className="py-1 font-normal">
              {name}
            </th>
            <td className="py-1 text-right tabular-nums">{latency.count}</td>
            <td className="py-1 text-right tabular-nums">{upTo(latency.p50, latency.count)}</td>
            <td className="py-1 text-right tabular-nums">{upTo(latency.p95, latency.count)}</td>
            <td className="py-1 text-right tabular-nums">{upTo(latency.p99, latency.count)}</td>
            <td className="py-1 text-right tabular-nums">{latency.overflow}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function StatsSummary({ stats }: { stats: MonitoringStats }) {
  const { runs } = stats;
  return (
    <div data-testid="stats" data-scope={stats.scope}>
      <p className="text-xs text-slate-600">
        {stats.scope === '*' ? 'All tenants' : `Tenant ${stats.scope}`}, from <Time iso={stats.from} /> to{' '}
        <Time iso={stats.to} />
      </p>
      <dl className="mt-2 grid grid-cols-2 gap-3 md:grid-cols-4 lg:grid-cols-8">
        <Figure label="Runs ended" value={runs.total} />
        <Figure label="Success rate" value={formatShare(runs.successRate)} />
        <Figure label="Error rate" value={formatShare(runs.errorRate)} />
        <Figure label="Retried" value={runs.retried} />
        <Figure label="SLA missed" value={runs.slaMissed} />
        <Figure label="Heartbeat timeouts" value={runs.heartbeatTimeouts} hint="async runs whose worker went silent" />
        <Figure label="Dead letters" value={runs.deadLetters} />
        <Figure label="Due, not started" value={runs.dueNotStarted} hint="still queued, due by now" />
      </dl>
      <div className="mt-4 grid gap-4 md:grid-cols-3">
        <div className="rounded border border-slate-200 bg-white p-3">
          <CountTable caption="Jobs by status (now)" counts={stats.jobs.byStatus} />
        </div>
        <div className="rounded border border-slate-200 bg-white p-3">
          <CountTable caption="Runs by status (window)" counts={runs.byStatus} />
        </div>
        <div className="rounded border border-slate-200 bg-white p-3">
          <Percentiles stats={stats} />
        </div>
      </div>
    </div>
  );
}
