/** The job's next occurrences (the API's `upcoming`), in the browser's zone and the schedule's own. */
import type { Job } from '@chronos/client';
import { browserZone, formatInZone } from '../format.ts';
import { Empty } from '../QueryState.tsx';
import { Time } from '../Time.tsx';

export function Upcoming({ job }: { job: Job }) {
  const upcoming = job.upcoming ?? [];
  const scheduleZone = job.schedule.timezone ?? 'UTC';
  if (upcoming.length === 0) {
    return <Empty>{job.status === 'ACTIVE' ? 'No occurrence ahead.' : `None while the job is ${job.status}.`}</Empty>;
  }
  return (
    <table className="w-full text-left text-sm">
      <thead className="text-xs text-slate-600">
        <tr>
          <th scope="col" className="py-1 pr-4 font-medium">
            Your time ({browserZone()})
          </th>
          <th scope="col" className="py-1 font-medium">
            Schedule's zone ({scheduleZone})
          </th>
        </tr>
      </thead>
      <tbody>
        {upcoming.map((at) => (
          <tr key={at} className="border-t border-slate-100">
            <td className="py-1 pr-4">
              <Time iso={at} />
            </td>
            <td className="py-1 text-slate-700">{formatInZone(at, scheduleZone, { zoneName: true })}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
