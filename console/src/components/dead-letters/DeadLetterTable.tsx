/**
 * The dead-lettered runs of a page, each selectable, with its job, due time, attempt and reason,
 * and its lane when not normal (each lane has its own DLQ; a re-drive goes back to the run's lane).
 */
import type { Run } from '@chronos/client';
import { Link } from 'react-router';
import { PriorityBadge } from '../Lanes.tsx';
import { Time } from '../Time.tsx';

const EXCERPT_CHARS = 60;

function Reason({ run }: { run: Run }) {
  const detail = [run.error, run.responseExcerpt].filter((part): part is string => !!part).join('\n');
  return (
    <div className="text-xs">
      <span className="font-medium">{run.errorType ?? 'dead_letter'}</span>
      {run.httpStatus !== null && <span className="ml-2">HTTP {run.httpStatus}</span>}
      {detail &&
        (detail.length <= EXCERPT_CHARS && !detail.includes('\n') ? (
          <p className="font-mono text-slate-700">{detail}</p>
        ) : (
          <details>
            <summary className="cursor-pointer font-mono text-slate-700">{`${detail.slice(0, EXCERPT_CHARS).split('\n')[0]}…`}</summary>
            <pre className="mt-1 max-h-48 max-w-lg overflow-auto rounded bg-slate-50 p-2 whitespace-pre-wrap">
              {detail}
            </pre>
          </details>
        ))}
    </div>
  );
}

interface DeadLetterTableProps {
  runs: readonly Run[];
  jobNames: Record<string, string | undefined>;
  selected: ReadonlySet<string>;
  /** Runs re-driven from this page, with the attempt each became (the listing does not say). */
  redriven: Readonly<Record<string, number>>;
  onToggle: (runId: string, on: boolean) => void;
  onToggleAll: (on: boolean) => void;
}

export function DeadLetterTable({ runs, jobNames, selected, redriven, onToggle, onToggleAll }: DeadLetterTableProps) {
  const all = runs.length > 0 && runs.every((run) => selected.has(run.runId));
  return (
    <div className="overflow-x-auto rounded border border-slate-200 bg-white">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">Dead-lettered runs, newest first</caption>
        <thead className="border-b border-slate-200 text-xs text-slate-600">
          <tr>
            <th scope="col" className="w-10 px-3 py-2">
              <input
                type="checkbox"
                aria-label="Select every run on this page"
                checked={all}
                onChange={(event) => onToggleAll(event.target.checked)}
              />
            </th>
            <th scope="col" className="px-2 py-2 font-medium">
              Job
            </th>
            <th scope="col" className="px-2 py-2 font-medium">
              Scheduled
            </th>
            <th scope="col" className="px-2 py-2 font-medium">
              Attempt
            </th>
            <th scope="col" className="px-2 py-2 font-medium">
              Dead-lettered
            </th>
            <th scope="col" className="px-2 py-2 font-medium">
              Reason
            </th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => {
            const job = jobNames[run.jobId] ?? run.jobId;
            return (
              <tr key={run.runId} data-run-id={run.runId} className="border-b border-slate-100 align-top">
                <td className="px-3 py-2">
                  <input
                    type="checkbox"
                    aria-label={`Select the run of ${job} (attempt ${run.attempt})`}
                    checked={selected.has(run.runId)}
                    onChange={(event) => onToggle(run.runId, event.target.checked)}
                  />
                </td>
                <td className="px-2 py-2">
                  <Link to={`/jobs/${encodeURIComponent(run.jobId)}`} className="text-indigo-700 underline">
                    {job}
                  </Link>
                  <span className="block font-mono text-xs text-slate-600">{run.runId}</span>
                  {run.priority && run.priority !== 'normal' && <PriorityBadge priority={run.priority} />}
                </td>
                <td className="px-2 py-2">
                  <Time iso={run.scheduledFor} />
                </td>
                <td className="px-2 py-2">
                  {run.attempt}
                  {redriven[run.runId] !== undefined && (
                    <span className="mt-1 block w-fit rounded bg-emerald-100 px-1.5 py-0.5 text-xs whitespace-nowrap text-emerald-900">
                      re-driven as attempt {redriven[run.runId]}
                    </span>
                  )}
                </td>
                <td className="px-2 py-2">
                  <Time iso={run.completedAt} />
                </td>
                <td className="px-2 py-2">
                  <Reason run={run} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
