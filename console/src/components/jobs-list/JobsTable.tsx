/** One page of jobs as a table, each row selectable for the bulk actions. */
import type { Job } from '@chronos/client';
import { useEffect, useRef } from 'react';
import { Link } from 'react-router';
import { ScheduleText } from '../ScheduleText.tsx';
import { StatusBadge } from '../StatusBadge.tsx';
import { Time } from '../Time.tsx';
import { LastRun } from './LastRun.tsx';

/** A job's name, or its id when it has none. */
export function jobLabel(job: Job): string {
  return job.name ?? job.jobId;
}

interface JobsTableProps {
  jobs: Job[];
  selected: ReadonlySet<string>;
  onSelect: (selected: Set<string>) => void;
}

function SelectAll({ jobs, selected, onSelect }: JobsTableProps) {
  const box = useRef<HTMLInputElement>(null);
  const count = jobs.filter((job) => selected.has(job.jobId)).length;
  const all = count > 0 && count === jobs.length;
  useEffect(() => {
    if (box.current) box.current.indeterminate = count > 0 && !all;
  }, [count, all]);
  return (
    <input
      ref={box}
      type="checkbox"
      aria-label="Select every job on this page"
      checked={all}
      onChange={() => onSelect(all ? new Set() : new Set(jobs.map((job) => job.jobId)))}
      className="size-4"
    />
  );
}

const HEAD = 'px-3 py-2 text-left text-xs font-semibold uppercase tracking-wide text-slate-600';
const CELL = 'px-3 py-2 align-top';

export function JobsTable({ jobs, selected, onSelect }: JobsTableProps) {
  const toggle = (jobId: string) => {
    const next = new Set(selected);
    if (next.has(jobId)) next.delete(jobId);
    else next.add(jobId);
    onSelect(next);
  };
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table className="w-full text-sm">
        <thead className="border-b border-slate-200 bg-slate-50">
          <tr>
            <th scope="col" className={`${HEAD} w-10`}>
              <SelectAll jobs={jobs} selected={selected} onSelect={onSelect} />
            </th>
            <th scope="col" className={HEAD}>
              Name
            </th>
            <th scope="col" className={HEAD}>
              Schedule
            </th>
            <th scope="col" className={HEAD}>
              Status
            </th>
            <th scope="col" className={HEAD}>
              Next fire
            </th>
            <th scope="col" className={HEAD}>
              Last run
            </th>
          </tr>
        </thead>
        <tbody>
          {jobs.map((job) => (
            <tr key={job.jobId} className="border-b border-slate-100 last:border-0 hover:bg-slate-50">
              <td className={CELL}>
                <input
                  type="checkbox"
                  aria-label={`Select ${jobLabel(job)}`}
                  checked={selected.has(job.jobId)}
                  onChange={() => toggle(job.jobId)}
                  className="size-4"
                />
              </td>
              <th scope="row" className={`${CELL} text-left font-medium`}>
                <Link to={`/jobs/${job.jobId}`} className="text-indigo-700 underline-offset-2 hover:underline">
                  {jobLabel(job)}
                </Link>
              </th>
              <td className={CELL}>
                <ScheduleText schedule={job.schedule} />
              </td>
              <td className={CELL}>
                <StatusBadge status={job.status} />
              </td>
              <td className={CELL}>
                <Time iso={job.nextFireAt} />
              </td>
              <td className={CELL}>
                <LastRun job={job} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
