/**
 * A row's last run: its status and when it completed (or was due). GET /v1/jobs answers
 * `latestRun: null` for every listed job (only GET /v1/jobs/{id} reads the runs), so a row
 * without one asks for its job; that answer is shared with the job's own page through the cache.
 */
import type { Job } from '@chronos/client';
import { useJob } from '../../api/jobs.ts';
import { StatusBadge } from '../StatusBadge.tsx';
import { Time } from '../Time.tsx';

export function LastRun({ job }: { job: Job }) {
  const detail = useJob(job.jobId, { enabled: job.latestRun === null });
  const latest = job.latestRun ?? detail.data?.latestRun;
  if (latest) {
    return (
      <span className="flex flex-col items-start gap-0.5">
        <StatusBadge status={latest.status} />
        <Time iso={latest.completedAt ?? latest.scheduledFor} />
      </span>
    );
  }
  if (detail.isPending && job.latestRun === null) return <span className="text-slate-600">…</span>;
  if (detail.isError) return <span className="text-slate-600">unknown</span>;
  return <span className="text-slate-600">No run yet</span>;
}
