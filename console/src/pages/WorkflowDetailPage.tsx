/**
 * One workflow (/workflows/:id): its definition, its graph (with the task states of the run picked
 * from the runs list, `run` in the URL), the actions, and its runs. The workflow, the runs and the
 * picked run are separate calls: when one fails the others stay.
 */
import { Link, useParams, useSearchParams } from 'react-router';
import { ChronosError } from '../api/result.ts';
import { useWorkflow, useWorkflowRun } from '../api/workflows.ts';
import { ErrorState, Loading } from '../components/QueryState.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { LazyWorkflowGraph } from '../components/workflows/LazyWorkflowGraph.tsx';
import { WorkflowActions } from '../components/workflows/WorkflowActions.tsx';
import { TaskDefinitions, WorkflowDefinition } from '../components/workflows/WorkflowDefinition.tsx';
import { WorkflowRunsList } from '../components/workflows/WorkflowRunsList.tsx';
import { workflowLabel } from '../components/workflows/WorkflowsTable.tsx';

export function WorkflowDetailPage() {
  const { id = '' } = useParams();
  const [params] = useSearchParams();
  const workflow = useWorkflow(id);
  const selectedRunId = params.get('run') ?? undefined;
  const selectedRun = useWorkflowRun(selectedRunId);

  if (workflow.isPending) return <Loading what="the workflow" />;
  if (!workflow.data) {
    const missing = workflow.error instanceof ChronosError && workflow.error.error.status === 404;
    return (
      <>
        <h1 className="text-xl font-semibold">Workflow</h1>
        {missing ? (
          <p className="py-6 text-sm">
            No workflow <code>{id}</code> in this tenant. <Link to="/workflows">Back to the workflows</Link>
          </p>
        ) : (
          <ErrorState what="the workflow" error={workflow.error} retry={() => void workflow.refetch()} />
        )}
      </>
    );
  }

  const data = workflow.data;
  const label = workflowLabel(data);
  const run = selectedRun.data;
  // A run keeps the version it started with: its own tasks draw its graph.
  const graphTasks = run ? run.tasks : data.tasks;
  return (
    <>
      <nav aria-label="Breadcrumb" className="mb-2 text-sm">
        <Link to="/workflows" className="text-indigo-700 underline">
          Workflows
        </Link>{' '}
        / <span className="font-mono text-xs">{data.workflowId}</span>
      </nav>
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-xl font-semibold">{label}</h1>
        <span data-testid="workflow-status">
          <StatusBadge status={data.status} />
        </span>
      </div>
      {workflow.isError && (
        <ErrorState
          what="the latest state of the workflow"
          error={workflow.error}
          retry={() => void workflow.refetch()}
        />
      )}
      <section aria-label="Actions" className="mt-4">
        <WorkflowActions workflow={data} />
      </section>
      <div className="mt-3 grid gap-6 lg:grid-cols-[2fr_3fr]">
        <section
          aria-labelledby="definition-heading"
          className="self-start rounded border border-slate-200 bg-white p-4"
        >
          <h2 id="definition-heading" className="mb-2 text-lg font-semibold">
            Definition
          </h2>
          <WorkflowDefinition workflow={data} />
        </section>
        <section aria-labelledby="graph-heading" className="rounded border border-slate-200 bg-white p-4">
          <h2 id="graph-heading" className="mb-2 text-lg font-semibold">
            Graph
          </h2>
          <p className="mb-2 text-sm text-slate-600" aria-live="polite">
            {run ? (
              <>
                Task states of run{' '}
                <Link
                  to={`/workflow-runs/${encodeURIComponent(run.workflowRunId)}`}
                  className="font-mono text-xs text-indigo-700 underline"
                >
                  {run.workflowRunId}
                </Link>{' '}
                (version {run.version}).
              </>
            ) : selectedRunId && selectedRun.isPending ? (
              'Loading the run…'
            ) : (
              `Version ${data.version}: each task below the tasks it depends on. Pick a run below to see its task states.`
            )}
          </p>
          {selectedRun.isError && (
            <ErrorState what="the run" error={selectedRun.error} retry={() => void selectedRun.refetch()} />
          )}
          <LazyWorkflowGraph tasks={graphTasks} label={`Graph of ${label}`} />
        </section>
      </div>
      <section aria-labelledby="tasks-heading" className="mt-6 rounded border border-slate-200 bg-white p-4">
        <h2 id="tasks-heading" className="mb-2 text-lg font-semibold">
          Tasks
        </h2>
        <TaskDefinitions workflow={data} />
      </section>
      <WorkflowRunsList workflow={data} />
    </>
  );
}
