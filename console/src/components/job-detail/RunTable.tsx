/**
 * A page of runs: timings (with the time a run waited for its flow-control key), the SLA verdict,
 * an async run's progress, the target's answer (a long excerpt opens in place) and a worker's
 * output; a run's lane when not normal (a PATCHed priority applies to later runs only, so one
 * job's runs may differ); and, when given, each run's actions (cancel).
 */
import type { Run } from '@chronos/client';
import type { ReactNode } from 'react';
import { formatMs } from '../format.ts';
import { PriorityBadge, WaitedText } from '../Lanes.tsx';
import { ScrollRegion } from '../ScrollRegion.tsx';
import { StatusBadge } from '../StatusBadge.tsx';
import { Time } from '../Time.tsx';
import { AsyncProgress } from './AsyncProgress.tsx';

const EXCERPT_CHARS = 40;

function Outcome({ run }: { run: Run }) {
  const text = [run.error, run.responseExcerpt].filter((part): part is string => !!part).join('\n');
  if (!text) return <span className="text-slate-500">—</span>;
  if (text.length <= EXCERPT_CHARS && !text.includes('\n')) return <span className="font-mono text-xs">{text}</span>;
  return (
    <details>
      <summary className="cursor-pointer font-mono text-xs">{`${text.slice(0, EXCERPT_CHARS).split('\n')[0]}…`}</summary>
      <pre className="mt-1 max-h-48 max-w-md overflow-auto rounded bg-slate-50 p-2 text-xs whitespace-pre-wrap">
        {text}
      </pre>
    </details>
  );
}

/** What an async worker's completion carried, as JSON, opened in place. */
function Output({ output }: { output: unknown }) {
  if (output === null || output === undefined) return null;
  return (
    <details className="mt-1" data-testid="run-output">
      <summary className="cursor-pointer text-xs font-medium">Output</summary>
      <pre className="mt-1 max-h-48 max-w-md overflow-auto rounded bg-slate-50 p-2 text-xs whitespace-pre-wrap">
        {JSON.stringify(output, null, 2)}
      </pre>
    </details>
  );
}

function SlaMet({ met }: { met: boolean | null }) {
  if (met === null) return <span className="text-slate-500">—</span>;
  return met ? <span className="text-emerald-800">met</span> : <span className="font-medium text-red-800">missed</span>;
}

const HEADERS = [
  'Status',
  'Progress',
  'Attempt',
  'Scheduled',
  'Started',
  'Completed',
  'Duration',
  'Start lag',
  'SLA',
  'HTTP',
  'Error type',
  'Response / error',
];

export function RunTable({
  runs,
  caption,
  actions,
}: {
  runs: readonly Run[];
  caption: string;
  /** Each run's actions, when the table offers any: under its status, where a narrow screen still shows them. */
  actions?: (run: Run) => ReactNode;
}) {
  return (
    <ScrollRegion label={caption}>
      <table className="w-full text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="border-b border-slate-200 text-xs text-slate-600">
          <tr>
            {HEADERS.map((header) => (
              <th key={header} scope="col" className="px-2 py-2 font-medium whitespace-nowrap">
                {header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.runId} data-run-id={run.runId} className="border-b border-slate-100 align-top">
              <td className="px-2 py-1.5">
                <StatusBadge status={run.status} />
                {run.priority && run.priority !== 'normal' && (
                  <div className="mt-1">
                    <PriorityBadge priority={run.priority} />
                  </div>
                )}
                {actions && <div className="mt-1">{actions(run)}</div>}
              </td>
              <td className="px-2 py-1.5">
                <AsyncProgress run={run} />
              </td>
              <td className="px-2 py-1.5">{run.attempt}</td>
              <td className="px-2 py-1.5">
                <Time iso={run.scheduledFor} />
              </td>
              <td className="px-2 py-1.5">
                <Time iso={run.startedAt} />
              </td>
              <td className="px-2 py-1.5">
                <Time iso={run.completedAt} />
              </td>
              <td className="px-2 py-1.5 whitespace-nowrap">{formatMs(run.durationMs)}</td>
              <td className="px-2 py-1.5 whitespace-nowrap">
                {formatMs(run.startLagMs)}
                <WaitedText waitedMs={run.waitedMs} flow={run.flowControl} />
              </td>
              <td className="px-2 py-1.5">
                <SlaMet met={run.slaMet} />
              </td>
              <td className="px-2 py-1.5">{run.httpStatus ?? <span className="text-slate-500">—</span>}</td>
              <td className="px-2 py-1.5">{run.errorType ?? <span className="text-slate-500">—</span>}</td>
              <td className="px-2 py-1.5">
                <Outcome run={run} />
                <Output output={run.output} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
