/**
 * Edit a job: the form is filled from the job as it was loaded, and the PATCH sends that version as
 * If-Match with only what changed. When the job changed meanwhile (409) nothing is saved: the page
 * says so and offers to reload the job as it is now (the edits are dropped, never merged silently).
 */
import type { Job } from '@chronos/client';
import { useEffect, useMemo, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useJob, useUpdateJob } from '../api/jobs.ts';
import { ChronosError } from '../api/result.ts';
import { JobForm } from '../components/job-form/JobForm.tsx';
import { buildUpdateJob } from '../components/job-form/to-request.ts';
import { valuesFromJob } from '../components/job-form/values.ts';
import { ErrorState, Loading } from '../components/QueryState.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';

const ENDED = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

function ConflictNotice({ onReload, reloading }: { onReload: () => void; reloading: boolean }) {
  return (
    <div role="alert" className="rounded border border-amber-400 bg-amber-50 p-3 text-sm text-amber-950">
      <p className="font-medium">Not saved: this job changed since you opened it.</p>
      <p className="mt-1">
        Someone edited, paused, resumed or cancelled it meanwhile (the scheduler's own runs do not count). Reload the
        job to see it as it is now; your unsaved changes here will be discarded, so make them again after reloading.
      </p>
      <button
        type="button"
        onClick={onReload}
        disabled={reloading}
        className="mt-2 rounded border border-amber-600 px-2 py-1 hover:bg-amber-100 disabled:opacity-60"
      >
        {reloading ? 'Reloading…' : 'Reload the job'}
      </button>
    </div>
  );
}

function EditForm({ job, onReloaded }: { job: Job; onReloaded: (job: Job) => void }) {
  const { refetch } = useJob(job.jobId);
  const update = useUpdateJob();
  const navigate = useNavigate();
  const initial = useMemo(() => valuesFromJob(job), [job]);
  const [nothingToSave, setNothingToSave] = useState(false);
  const [reloading, setReloading] = useState(false);
  const conflict = update.error instanceof ChronosError && update.error.error.status === 409;

  async function reload() {
    setReloading(true);
    const fresh = await refetch();
    setReloading(false);
    if (fresh.data) onReloaded(fresh.data);
  }

  return (
    <JobForm
      mode="edit"
      initial={initial}
      submitLabel="Save changes"
      busy={update.isPending}
      submitError={conflict ? undefined : (update.error ?? undefined)}
      cancelTo={`/jobs/${job.jobId}`}
      notice={
        conflict ? (
          <ConflictNotice onReload={reload} reloading={reloading} />
        ) : nothingToSave ? (
          <p role="status" className="text-sm text-slate-700">
            Nothing changed: there is nothing to save.
          </p>
        ) : undefined
      }
      onSubmit={(values) => {
        const { body, errors, unchanged } = buildUpdateJob(initial, values);
        setNothingToSave(unchanged === true);
        if (!body) return errors;
        update.mutate(
          { id: job.jobId, body, version: job.version },
          { onSuccess: (saved) => navigate(`/jobs/${saved.jobId}`) },
        );
        return undefined;
      }}
    />
  );
}

export function EditJobPage() {
  const { id = '' } = useParams();
  const job = useJob(id);
  // The version the form was filled from: a background refetch must not move If-Match under the user.
  const [snapshot, setSnapshot] = useState<Job>();
  useEffect(() => {
    if (!snapshot && job.data) setSnapshot(job.data);
  }, [snapshot, job.data]);

  const title = snapshot?.name ?? id;
  return (
    <div className="max-w-4xl">
      <p className="mb-1 text-sm">
        <Link to={`/jobs/${id}`} className="text-indigo-700 underline">
          Back to the job
        </Link>
      </p>
      <h1 className="mb-4 text-xl font-semibold">Edit {title}</h1>
      {!snapshot && job.isError && <ErrorState what="the job" error={job.error} retry={() => job.refetch()} />}
      {!snapshot && !job.isError && <Loading what="the job" />}
      {snapshot && ENDED.has(snapshot.status) && (
        <p className="rounded border border-slate-300 bg-white p-3 text-sm">
          This job is <StatusBadge status={snapshot.status} /> and can no longer be changed.
        </p>
      )}
      {snapshot && !ENDED.has(snapshot.status) && (
        <EditForm key={snapshot.version} job={snapshot} onReloaded={setSnapshot} />
      )}
    </div>
  );
}
