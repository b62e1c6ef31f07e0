/**
 * Pause, resume, trigger now, edit and cancel (after a confirmation). A button is offered in the
 * states the API accepts it in; when the API refuses anyway (a one-time job not run yet cannot be
 * triggered, a job changed meanwhile) its message is shown as it came.
 */
import type { Job } from '@chronos/client';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { type JobAction, useJobAction } from '../../api/jobs.ts';
import { errorMessage } from '../../api/result.ts';
import { ActionDialog } from '../ActionDialog.tsx';

const DONE: Record<JobAction, string> = {
  pause: 'Paused: no run starts until you resume.',
  resume: 'Resumed.',
  trigger: 'Triggered: a run was queued for now.',
  cancel: 'Cancelled: the job will not run again.',
};

const ENDED: ReadonlySet<Job['status']> = new Set(['CANCELLED', 'COMPLETED', 'FAILED']);

const BUTTON = 'rounded border border-slate-300 bg-white px-3 py-1.5 text-sm hover:bg-slate-100 disabled:opacity-50';

export function JobActions({ job }: { job: Job }) {
  const action = useJobAction();
  const [confirming, setConfirming] = useState(false);
  const busy = action.isPending;
  const run = (name: JobAction) => action.mutate({ id: job.jobId, action: name });
  const ended = ENDED.has(job.status);
  // Every button is disabled while an action runs, and the browser drops focus from a disabled
  // button: once the action has answered, a keyboard user goes on from its outcome, not the page's top.
  const outcome = useRef<HTMLDivElement>(null);
  const settled = action.isSuccess || action.isError;
  useEffect(() => {
    const at = document.activeElement;
    const lost = at === null || at === document.body || (at instanceof HTMLButtonElement && at.disabled);
    if (settled && lost) outcome.current?.focus();
  }, [settled]);

  return (
    <div>
      <div className="flex flex-wrap items-center gap-2">
        <button
          type="button"
          className={BUTTON}
          disabled={busy || job.status !== 'ACTIVE'}
          onClick={() => run('pause')}
        >
          Pause
        </button>
        <button
          type="button"
          className={BUTTON}
          disabled={busy || job.status !== 'PAUSED'}
          onClick={() => run('resume')}
        >
          Resume
        </button>
        <button type="button" className={BUTTON} disabled={busy || ended} onClick={() => run('trigger')}>
          Trigger now
        </button>
        {ended ? (
          <span className="text-sm text-slate-500">Edit (not for an ended job)</span>
        ) : (
          <Link to={`/jobs/${encodeURIComponent(job.jobId)}/edit`} className={`${BUTTON} inline-block`}>
            Edit
          </Link>
        )}
        <ActionDialog
          open={confirming}
          onOpenChange={setConfirming}
          destructive
          title="Cancel this job?"
          description={
            <>
              <strong>{job.name ?? job.jobId}</strong> will never run again; runs already queued end CANCELLED without
              calling the target. Its history stays. This cannot be undone.
            </>
          }
          confirm="Cancel job"
          onConfirm={() => run('cancel')}
          trigger={
            <button
              type="button"
              className={`${BUTTON} border-red-300 text-red-800 hover:bg-red-50`}
              disabled={busy || ended}
            >
              Cancel job…
            </button>
          }
        />
      </div>
      <div ref={outcome} tabIndex={-1}>
        <div aria-live="polite" className="mt-2 min-h-5 text-sm">
          {busy && <span className="text-slate-600">Working…</span>}
          {action.isSuccess && <span className="text-emerald-800">{DONE[action.variables.action]}</span>}
        </div>
        {action.isError && (
          <p role="alert" className="mt-1 rounded border border-red-300 bg-red-50 p-2 text-sm text-red-900">
            {action.variables ? `Could not ${action.variables.action}: ` : ''}
            {errorMessage(action.error)}
          </p>
        )}
      </div>
    </div>
  );
}
