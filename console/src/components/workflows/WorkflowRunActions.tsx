/**
 * Retry (offered when the run FAILED: its failed tasks and what depends on them run again, the
 * succeeded ones are not called again) and cancel (offered while it is RUNNING), each after a
 * confirmation; the API's refusal (409: a task still going, nothing failed, the run ended) is
 * shown as it came.
 */
import { useEffect, useRef, useState } from 'react';
import { errorMessage } from '../../api/result.ts';
import type { WorkflowRun } from '../../api/workflow-types.ts';
import { useWorkflowRunAction, type WorkflowRunAction } from '../../api/workflows.ts';
import { ActionDialog } from '../ActionDialog.tsx';

const BUTTON = 'rounded border border-slate-300 bg-white px-3 py-1.5 text-sm hover:bg-slate-100 disabled:opacity-50';

export function WorkflowRunActions({ run }: { run: WorkflowRun }) {
  const action = useWorkflowRunAction();
  const [confirming, setConfirming] = useState<WorkflowRunAction | undefined>();
  const busy = action.isPending;
  const perform = (name: WorkflowRunAction) => action.mutate({ workflowRunId: run.workflowRunId, action: name });

  const outcome = useRef<HTMLDivElement>(null);
  const settled = action.isSuccess || action.isError;
  useEffect(() => {
    const at = document.activeElement;
    const lost = at === null || at === document.body || (at instanceof HTMLButtonElement && at.disabled);
    if (settled && lost) outcome.current?.focus();
  }, [settled]);

  const open = (name: WorkflowRunAction) => (next: boolean) => setConfirming(next ? name : undefined);
  return (
    <div>
      <div className="flex flex-wrap items-center gap-2">
        <ActionDialog
          open={confirming === 'retry'}
          onOpenChange={open('retry')}
          title="Retry this workflow run?"
          description="Its failed tasks run again, and every task downstream of them that did not succeed. Tasks that succeeded are not called again."
          confirm="Retry run"
          onConfirm={() => perform('retry')}
          trigger={
            <button type="button" className={BUTTON} disabled={busy || run.status !== 'FAILED'}>
              Retry…
            </button>
          }
        />
        <ActionDialog
          open={confirming === 'cancel'}
          onOpenChange={open('cancel')}
          destructive
          title="Cancel this workflow run?"
          description="Tasks not started yet end CANCELLED without a call; tasks in flight are asked to stop. This cannot be undone."
          confirm="Cancel run"
          onConfirm={() => perform('cancel')}
          trigger={
            <button
              type="button"
              className={`${BUTTON} border-red-300 text-red-800 hover:bg-red-50`}
              disabled={busy || run.status !== 'RUNNING'}
            >
              Cancel run…
            </button>
          }
        />
      </div>
      <div ref={outcome} tabIndex={-1}>
        <div aria-live="polite" className="mt-2 min-h-5 text-sm">
          {busy && <span className="text-slate-600">Working…</span>}
          {action.isSuccess && (
            <span className="text-emerald-800">
              {action.variables.action === 'retry'
                ? `Retrying: round ${(action.data as WorkflowRun).round} started.`
                : 'Cancelled: tasks not started will not run.'}
            </span>
          )}
        </div>
        {action.isError && (
          <p role="alert" className="mt-1 rounded border border-red-300 bg-red-50 p-2 text-sm text-red-900">
            Could not {action.variables?.action ?? 'do that'}: {errorMessage(action.error)}
          </p>
        )}
      </div>
    </div>
  );
}
