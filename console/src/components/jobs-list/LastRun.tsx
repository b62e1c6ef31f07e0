/** A row's last run, as GET /v1/jobs gives it: its status and when it completed (or was due). */
import type { Job } from '@chronos/client';
import { StatusBadge } from '../StatusBadge.tsx';
import { Time } from '../Time.tsx';

export function LastRun({ job }: { job: Job }) {
  const latest = job.latestRun;
  if (!latest) return <span className="text-slate-600">No run yet</span>;
  return (
    <span className="flex flex-col items-start gap-0.5">
      <StatusBadge status={latest.status} />
      <Time iso={latest.completedAt ?? latest.scheduledFor} />
    </span>
  );
}
