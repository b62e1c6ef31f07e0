/**
 * A workflow's runs, newest first, a page at a time (`cursor` in the URL). Each run links to its
 * page; "Show on graph" puts its task states on the workflow's graph (`run` in the URL).
 */
import { Link, useSearchParams } from 'react-router';
import type { Workflow } from '../../api/workflow-types.ts';
import { useWorkflowRuns } from '../../api/workflows.ts';
import { CursorPager } from '../CursorPager.tsx';
import { pageSize } from '../format.ts';
import { Empty, ErrorState, Loading } from '../QueryState.tsx';
import { StatusBadge } from '../StatusBadge.tsx';
import { Time } from '../Time.tsx';
import { taskCountsText } from './TaskCounts.tsx';
import { workflowLabel } from './WorkflowsTable.tsx';

const HEAD = 'px-3 py-2 text-left text-xs font-semibold uppercase tracking-wide text-slate-600';
const CELL = 'px-3 py-2 align-top';

export function WorkflowRunsList({ workflow }: { workflow: Workflow }) {
  const { workflowId } = workflow;
  const label = workflowLabel(workflow);
  const [params, setParams] = useSearchParams();
  const cursor = params.get('cursor') ?? undefined;
  const selected = params.get('run') ?? undefined;
  const limit = pageSize(params);
  const scheduled = workflow.status === 'ACTIVE' && workflow.schedule !== null;
  const runs = useWorkflowRuns(workflowId, { limit, ...(cursor ? { cursor } : {}) }, scheduled);

  function update(name: string, value: string | undefined) {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    setParams(next);
  }

  const items = runs.data?.items ?? [];
  return (
    <section aria-labelledby="workflow-runs-heading" className="mt-8">
      <h2 id="workflow-runs-heading" className="mb-3 text-lg font-semibold">
        Runs
      </h2>
      {runs.isError && <ErrorState what="the runs" error={runs.error} retry={() => void runs.refetch()} />}
      {runs.isPending ? (
        <Loading what="runs" />
      ) : items.length === 0 ? (
        !runs.isError && <Empty>No runs yet: they appear here when the workflow fires or is triggered.</Empty>
      ) : (
        <div className="overflow-x-auto rounded border border-slate-200 bg-white">
          <table className="w-full text-sm">
            <caption className="sr-only">Runs of {label}, newest first</caption>
            <thead className="border-b border-slate-200 bg-slate-50">
              <tr>
                {['Run', 'Status', 'Started', 'Completed', 'Tasks', 'Version', 'Graph'].map((title) => (
                  <th key={title} scope="col" className={HEAD}>
                    {title}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {items.map((run) => (
                <tr
                  key={run.workflowRunId}
                  data-workflow-run-id={run.workflowRunId}
                  aria-current={run.workflowRunId === selected ? 'true' : undefined}
                  className={`border-b border-slate-100 last:border-0 ${
                    run.workflowRunId === selected ? 'bg-indigo-50' : 'hover:bg-slate-50'
                  }`}
                >
                  <th scope="row" className={`${CELL} text-left font-normal`}>
                    <Link
                      to={`/workflow-runs/${encodeURIComponent(run.workflowRunId)}`}
                      className="font-mono text-xs text-indigo-700 underline"
                    >
                      {run.workflowRunId}
                    </Link>
                    <span className="block text-xs text-slate-600">
                      {run.triggered ? 'triggered' : 'scheduled'}
                      {run.round > 0 && `, retry round ${run.round}`}
                    </span>
                  </th>
                  <td className={CELL}>
                    <StatusBadge status={run.status} />
                  </td>
                  <td className={CELL}>
                    <Time iso={run.startedAt} />
                  </td>
                  <td className={CELL}>
                    <Time iso={run.completedAt} />
                  </td>
                  <td className={`${CELL} text-xs`}>{taskCountsText(run.taskCounts)}</td>
                  <td className={CELL}>{run.version}</td>
                  <td className={CELL}>
                    {run.workflowRunId === selected ? (
                      <button
                        type="button"
                        className="text-sm text-indigo-700 underline"
                        aria-label={`Hide from graph: ${run.workflowRunId}`}
                        onClick={() => update('run', undefined)}
                      >
                        Hide from graph
                      </button>
                    ) : (
                      <button
                        type="button"
                        className="text-sm text-indigo-700 underline"
                        aria-label={`Show on graph: ${run.workflowRunId}`}
                        onClick={() => update('run', run.workflowRunId)}
                      >
                        Show on graph
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <CursorPager
        label="Run pages"
        cursor={cursor}
        nextCursor={runs.data?.cursor}
        onGo={(next) => update('cursor', next)}
      />
    </section>
  );
}
