/**
 * The operator's view of the machinery: dispatch queue and DLQ depths with their oldest-message
 * age (CloudWatch's, or why there is none), the scanner's last pass per shard, executor in-flight,
 * and the async runs a worker holds (overdue ones: past a deadline the scanner has not acted on);
 * with priority lanes (issue #22), each lane's queues, the top-level ones being the normal lane's.
 */
import type { MonitoringSystem } from '@chronos/client';
import { formatMs } from '../format.ts';
import { Time } from '../Time.tsx';
import { ageText } from './age-text.ts';
import { LanesTable } from './LanesTable.tsx';

function Stat({ label, value }: { label: string; value: string | number }) {
  return (
    <div className="flex justify-between gap-4 border-t border-slate-100 py-1 text-sm first:border-0">
      <dt className="text-slate-600">{label}</dt>
      <dd className="tabular-nums">{value}</dd>
    </div>
  );
}

export function SystemView({ system }: { system: MonitoringSystem }) {
  const { dispatchQueue: queue, deadLetterQueue: dlq, scanner, executor, asyncRuns, lanes } = system;
  return (
    <div data-testid="system">
      <div className="grid gap-4 md:grid-cols-3">
        <section aria-labelledby="dispatch-heading" className="rounded border border-slate-200 bg-white p-3">
          <h3 id="dispatch-heading" className="mb-1 text-sm font-semibold">
            Dispatch queue{lanes ? ' (normal lane)' : ''}
          </h3>
          <dl>
            <Stat label="Depth" value={queue.depth} />
            <Stat label="Released, not received" value={queue.visible} />
            <Stat label="In flight" value={queue.inFlight} />
            <Stat label="Delayed (not due yet)" value={queue.delayed} />
            <Stat label="Oldest message" value={ageText(queue.oldestMessageAgeSeconds, queue.oldestMessageAge)} />
          </dl>
        </section>
        <section aria-labelledby="dlq-heading" className="rounded border border-slate-200 bg-white p-3">
          <h3 id="dlq-heading" className="mb-1 text-sm font-semibold">
            Dead-letter queue{lanes ? ' (normal lane)' : ''}
          </h3>
          <dl>
            <Stat label="Depth" value={dlq.depth} />
            <Stat label="Oldest message" value={ageText(dlq.oldestMessageAgeSeconds, dlq.oldestMessageAge)} />
          </dl>
        </section>
        <section aria-labelledby="executor-heading" className="rounded border border-slate-200 bg-white p-3">
          <h3 id="executor-heading" className="mb-1 text-sm font-semibold">
            Executor and scanner
          </h3>
          <dl>
            <Stat label="Executor in flight" value={executor.inFlight} />
            <Stat label="Async runs in flight" value={asyncRuns.inFlight} />
            <Stat label="Async runs overdue" value={asyncRuns.overdue} />
            <div className="flex justify-between gap-4 border-t border-slate-100 py-1 text-sm">
              <dt className="text-slate-600">Scanner's last pass</dt>
              <dd>
                <Time iso={scanner.lastRunAt} fallback="never" />
              </dd>
            </div>
            <Stat label="Shards reporting" value={scanner.shards.length} />
          </dl>
        </section>
      </div>
      {lanes && <LanesTable lanes={lanes} />}
      <div className="mt-4 overflow-x-auto rounded border border-slate-200 bg-white">
        <table className="w-full text-left text-sm">
          <caption className="px-3 pt-2 text-left text-sm font-semibold">Scanner shards, last pass</caption>
          <thead className="text-xs text-slate-600">
            <tr>
              {['Shard', 'Last pass', 'Age', 'Took', 'Jobs found', 'Runs created', 'Lag', 'Error'].map((header) => (
                <th key={header} scope="col" className="px-3 py-1 font-medium whitespace-nowrap">
                  {header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {scanner.shards.map((shard) => (
              <tr key={shard.shard} className="border-t border-slate-100">
                <th scope="row" className="px-3 py-1 font-mono text-xs font-normal">
                  {shard.shard}
                </th>
                <td className="px-3 py-1">
                  <Time iso={shard.lastRunAt} />
                </td>
                <td className="px-3 py-1 tabular-nums">{shard.ageSeconds} s</td>
                <td className="px-3 py-1 tabular-nums">{formatMs(shard.durationMs)}</td>
                <td className="px-3 py-1 tabular-nums">{shard.jobsFound}</td>
                <td className="px-3 py-1 tabular-nums">{shard.runsCreated}</td>
                <td className="px-3 py-1 tabular-nums">{formatMs(shard.lagMs)}</td>
                <td className={`px-3 py-1 ${shard.error ? 'text-red-800' : 'text-slate-500'}`}>
                  {shard.error ?? 'none'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
