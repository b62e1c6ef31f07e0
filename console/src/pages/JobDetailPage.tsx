/**
 * One job (/jobs/:id): what it is, when it fires next, what can be done to it, and what its runs
 * did. The definition and the run history are separate calls: when one fails the other stays.
 */
import { Link, useParams } from 'react-router';
import { useJob } from '../api/jobs.ts';
import { ChronosError } from '../api/result.ts';
import { FlowControlPanel } from '../components/job-detail/FlowControlPanel.tsx';
import { JobActions } from '../components/job-detail/JobActions.tsx';
import { JobDefinition } from '../components/job-detail/JobDefinition.tsx';
import { RunHistory } from '../components/job-detail/RunHistory.tsx';
import { Upcoming } from '../components/job-detail/Upcoming.tsx';
import { ErrorState, Loading } from '../components/QueryState.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';

export function JobDetailPage() {
  const { id = '' } = useParams();
  const job = useJob(id);

  if (job.isPending) return <Loading what="the job" />;
  if (!job.data) {
    const missing = job.error instanceof ChronosError && job.error.error.status === 404;
    return (
      <>
        <h1 className="text-xl font-semibold">Job</h1>
        {missing ? (
          <p className="py-6 text-sm">
            No job <code>{id}</code> in this tenant. <Link to="/jobs">Back to the jobs</Link>
          </p>
        ) : (
          <ErrorState what="the job" error={job.error} retry={() => void job.refetch()} />
        )}
      </>
    );
  }

  const data = job.data;
  return (
    <>
      <nav aria-label="Breadcrumb" className="mb-2 text-sm">
        <Link to="/jobs" className="text-indigo-700 underline">
          Jobs
        </Link>{' '}
        / <span className="font-mono text-xs">{data.jobId}</span>
      </nav>
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-xl font-semibold">{data.name ?? data.jobId}</h1>
        <span data-testid="job-status">
          <StatusBadge status={data.status} />
        </span>
      </div>
      {/* A failed refresh keeps what was shown and says so. */}
      {job.isError && (
        <ErrorState what="the latest state of the job" error={job.error} retry={() => void job.refetch()} />
      )}
      <section aria-label="Actions" className="mt-4">
        <JobActions job={data} />
      </section>
      <div className="mt-3 grid gap-6 lg:grid-cols-[3fr_2fr]">
        <section aria-labelledby="definition-heading" className="rounded border border-slate-200 bg-white p-4">
          <h2 id="definition-heading" className="mb-2 text-lg font-semibold">
            Definition
          </h2>
          <JobDefinition job={data} />
        </section>
        <div className="space-y-6 self-start">
          <section aria-labelledby="upcoming-heading" className="rounded border border-slate-200 bg-white p-4">
            <h2 id="upcoming-heading" className="mb-2 text-lg font-semibold">
              Upcoming occurrences
            </h2>
            <Upcoming job={data} />
          </section>
          {data.flowControl && (
            <section aria-labelledby="flow-control-heading" className="rounded border border-slate-200 bg-white p-4">
              <h2 id="flow-control-heading" className="mb-2 text-lg font-semibold">
                Flow-control key <code className="font-mono text-base">{data.flowControl.key}</code>
              </h2>
              <FlowControlPanel flowKey={data.flowControl.key} />
            </section>
          )}
        </div>
      </div>
      <RunHistory job={data} />
    </>
  );
}
