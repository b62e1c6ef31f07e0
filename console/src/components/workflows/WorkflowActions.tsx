/**
 * Trigger now, pause, resume and delete (after a confirmation) one workflow. A trigger says which
 * workflow run it started, linked; a refusal shows the API's message as it came. Focus goes to the
 * outcome when the pressed button was disabled under it (as on a job's page).
 */
import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { errorMessage } from '../../api/result.ts';
import type { Workflow, WorkflowRun } from '../../api/workflow-types.ts';
import { useWorkflowAction, type WorkflowAction } from '../../api/workflows.ts';
import { ActionDialog } from '../ActionDialog.tsx';
import { workflowLabel } from './WorkflowsTable.tsx';

const DONE: Record<Exclude<WorkflowAction, 'trigger'>, string> = {
  pause: 'Paused: no scheduled run starts until you resume.',
  resume: 'Resumed.',
  delete: 'Deleted.',
};

const BUTTON = 'rounded border border-slate-300 bg-white px-3 py-1.5 text-sm hover:bg-slate-100 disabled:opacity-50';

export function WorkflowActions({ workflow }: { workflow: Workflow }) {
  const action = useWorkflowAction();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const busy = action.isPending;
  const ended = workflow.status === 'CANCELLED' || workflow.status === 'COMPLETED';
  const label = workflowLabel(workflow);
  const run = (name: WorkflowAction) =>
    action.mutate(
      { id: workflow.workflowId, action: name },
      { onSuccess: () => name === 'delete' && navigate('/workflows', { state: { deleted: label } }) },
    );

  const outcome = useRef<HTMLDivElement>(null);
  const settled = action.isSuccess || action.isError;
  useEffect(() => {
    const at = document.activeElement;
    const lost = at === null || at === document.body || (at instanceof HTMLButtonElement && at.disabled);
    if (settled && lost) outcome.current?.focus();
  }, [settled]);

  const triggered =
    action.isSuccess && action.variables.action === 'trigger' ? (action.data as WorkflowRun) : undefined;
  return (
    <div>
      <div className="flex flex-wrap items-center gap-2">
        <button type="button" className={BUTTON} disabled={busy || ended} onClick={() => run('trigger')}>
          Trigger now
        </button>
        <button
          type="button"
          className={BUTTON}
          disabled={busy || workflow.status !== 'ACTIVE'}
          onClick={() => run('pause')}
        >
          Pause
        </button>
        <button
          type="button"
          className={BUTTON}
          disabled={busy || workflow.status !== 'PAUSED'}
          onClick={() => run('resume')}
        >
          Resume
        </button>
        <ActionDialog
          open={confirming}
          onOpenChange={setConfirming}
          destructive
          title="Delete this workflow?"
          description={
            <>
              <strong>{label}</strong> will not run again, on its schedule or by a trigger. Runs already started finish;
              their history stays. This cannot be undone.
            </>
          }
          confirm="Delete workflow"
          onConfirm={() => run('delete')}
          trigger={
            <button
              type="button"
              className={`${BUTTON} border-red-300 text-red-800 hover:bg-red-50`}
              disabled={busy || workflow.status === 'CANCELLED'}
            >
              Delete…
            </button>
          }
        />
      </div>
      <div ref={outcome} tabIndex={-1}>
        <div aria-live="polite" className="mt-2 min-h-5 text-sm">
          {busy && <span className="text-slate-600">Working…</span>}
          {triggered && (
            <span className="text-emerald-800" data-testid="triggered-run">
              Triggered: workflow run{' '}
              <Link
                to={`/workflow-runs/${encodeURIComponent(triggered.workflowRunId)}`}
                className="font-mono text-xs text-indigo-700 underline"
              >
                {triggered.workflowRunId}
              </Link>{' '}
              started.
            </span>
          )}
          {action.isSuccess && action.variables.action !== 'trigger' && (
            <span className="text-emerald-800">{DONE[action.variables.action]}</span>
          )}
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
