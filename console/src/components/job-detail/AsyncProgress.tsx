/**
 * An async run's life as its worker reports it (issue 20): a progress bar with the percentage and
 * the worker's message, the heartbeat deadline while it runs, and a pending cancel request. A
 * synchronous run shows a dash.
 */
import type { Run } from '@chronos/client';
import { Time } from '../Time.tsx';

function ProgressBar({ percent, message }: { percent: number; message: string | null }) {
  const shown = Math.round(Math.min(100, Math.max(0, percent)));
  return (
    <div className="min-w-36">
      <div className="flex items-center gap-2">
        <div
          role="progressbar"
          aria-label="Progress"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={shown}
          aria-valuetext={message ? `${shown}%: ${message}` : `${shown}%`}
          className="h-2 w-24 overflow-hidden rounded bg-slate-200"
        >
          <div className="h-full bg-indigo-600" style={{ width: `${shown}%` }} />
        </div>
        <span className="text-xs tabular-nums">{shown}%</span>
      </div>
      {message && (
        <p className="mt-0.5 max-w-56 truncate text-xs text-slate-700" title={message}>
          {message}
        </p>
      )}
    </div>
  );
}

export function AsyncProgress({ run }: { run: Run }) {
  if (!run.async && run.progress === null && run.cancelRequestedAt === null)
    return <span className="text-slate-500">—</span>;
  const running = run.status === 'RUNNING';
  return (
    <div data-testid="async-progress" className="space-y-0.5">
      {run.progress !== null ? (
        <ProgressBar percent={run.progress} message={run.progressMessage} />
      ) : (
        <span className="text-xs text-slate-600">{run.acceptedAt ? 'taken by the worker' : 'async'}</span>
      )}
      {running && run.heartbeatDeadline && (
        <p className="text-xs text-slate-600">
          heartbeat due by <Time iso={run.heartbeatDeadline} />
        </p>
      )}
      {running && run.cancelRequestedAt && (
        <p className="text-xs font-medium text-amber-900">
          cancel requested <Time iso={run.cancelRequestedAt} />
        </p>
      )}
    </div>
  );
}
