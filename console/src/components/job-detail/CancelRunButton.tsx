/**
 * "Cancel run" for a run that can still be stopped: one not called yet (QUEUED), or an async run
 * in flight not already asked. A synchronous call in progress cannot be stopped (the API would
 * answer 409 RUN_NOT_CANCELLABLE), so it gets no button.
 */
import type { Run } from '@chronos/client';
import { useState } from 'react';
import { ActionDialog } from '../ActionDialog.tsx';

export function isCancellable(run: Run): boolean {
  if (run.status === 'QUEUED') return true;
  return run.status === 'RUNNING' && run.async && run.cancelRequestedAt === null;
}

export function CancelRunButton({ run, busy, onCancel }: { run: Run; busy: boolean; onCancel: (run: Run) => void }) {
  const [open, setOpen] = useState(false);
  if (!isCancellable(run)) return null;
  return (
    <ActionDialog
      open={open}
      onOpenChange={setOpen}
      destructive
      title="Cancel this run?"
      description={
        run.status === 'QUEUED'
          ? 'The run ends CANCELLED now, without calling the target.'
          : "The worker hears it on its next heartbeat and may stop; without a completion the run ends CANCELLED after the job's cancel grace."
      }
      confirm="Cancel run"
      onConfirm={() => onCancel(run)}
      trigger={
        <button
          type="button"
          disabled={busy}
          className="rounded border border-red-300 bg-white px-2 py-1 text-xs whitespace-nowrap text-red-800 hover:bg-red-50 disabled:opacity-50"
        >
          Cancel run…
        </button>
      }
    />
  );
}
