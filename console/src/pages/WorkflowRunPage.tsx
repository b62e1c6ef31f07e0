/**
 * One workflow run (/workflow-runs/:workflowRunId): where it stands, its graph coloured by each
 * task's status, each task's run, and retry / cancel. Read again every 2 s while RUNNING.
 */
import type { ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { ChronosError } from '../api/result.ts';
import { useWorkflowRun } from '../api/workflows.ts';
import { ErrorState, Loading } from '../components/QueryState.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { Time } from '../components/Time.tsx';
import { LazyWorkflowGraph } from '../components/workflows/LazyWorkflowGraph.tsx';
import { TaskRunTable } from '../components/workflows/TaskRunTable.tsx';
import { WorkflowRunActions } from '../components/workflows/WorkflowRunActions.tsx';

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div>
      <dt className="text-xs font-medium text-slate-600">{term}</dt>
      <dd className="text-sm">{children}</dd>
    </div>
  );
}

export function WorkflowRunPage() {
  const { workflowRunId = '' } = useParams();
  const run = useWorkflowRun(workflowRunId);

  if (run.isPending) return <Loading what="the workflow run" />;
  if (!run.data) {
    const missing = run.error instanceof ChronosError && run.error.error.status === 404;
    return (
      <>
        <h1 className="text-xl font-semibold">Workflow run</h1>
        {missing ? (
          <p className="py-6 text-sm">
            No workflow run <code>{workflowRunId}</code> in this tenant.{' '}
            <Link to="/workflows">Back to the workflows</Link>
          </p>
        ) : (
          <ErrorState what="the workflow run" error={run.error} retry={() => void run.refetch()} />
        )}
      </>
    );
  }

  const data = run.data;
  const label = data.name ?? data.workflowId;
  return (
    <>
      <nav aria-label="Breadcrumb" className="mb-2 text-sm">
        <Link to="/workflows" className="text-indigo-700 underline">
          Workflows
        </Link>{' '}
        /{' '}
        <Link to={`/workflows/${encodeURIComponent(data.workflowId)}`} className="text-indigo-700 underline">
          {label}
        </Link>{' '}
        / <span className="font-mono text-xs">{data.workflowRunId}</span>
      </nav>
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-xl font-semibold">Run of {label}</h1>
        <span data-testid="workflow-run-status">
          <StatusBadge status={data.status} />
        </span>
        {data.status === 'RUNNING' && <span className="text-xs text-slate-600">(refreshes every 2 s)</span>}
      </div>
      {run.isError && (
        <ErrorState what="the latest state of the run" error={run.error} retry={() => void run.refetch()} />
      )}
      <dl className="mt-3 grid grid-cols-2 gap-3 rounded border border-slate-200 bg-white p-4 sm:grid-cols-4 lg:grid-cols-7">
        <Fact term="Version">{data.version}</Fact>
        <Fact term="Round">{data.round}</Fact>
        <Fact term="Started by">{data.triggered ? 'a trigger' : 'the schedule'}</Fact>
        <Fact term="Scheduled for">
          <Time iso={data.scheduledFor} />
        </Fact>
        <Fact term="Started">
          <Time iso={data.startedAt} />
        </Fact>
        <Fact term="Completed">
          <Time iso={data.completedAt} />
        </Fact>
        <Fact term="Cancel requested">
          <Time iso={data.cancelRequestedAt} fallback="no" />
        </Fact>
      </dl>
      <section aria-label="Actions" className="mt-4">
        <WorkflowRunActions run={data} />
      </section>
      <section aria-labelledby="graph-heading" className="mt-4 rounded border border-slate-200 bg-white p-4">
        <h2 id="graph-heading" className="mb-2 text-lg font-semibold">
          Graph
        </h2>
        <LazyWorkflowGraph tasks={data.tasks} label={`Graph of run ${data.workflowRunId}, by task status`} />
      </section>
      <section aria-labelledby="task-runs-heading" className="mt-6">
        <h2 id="task-runs-heading" className="mb-2 text-lg font-semibold">
          Tasks
        </h2>
        <TaskRunTable tasks={data.tasks} caption={`Tasks of run ${data.workflowRunId}`} />
      </section>
    </>
  );
}
