/**
 * Create a job. The request carries an Idempotency-Key made once per attempt, so a double submit or
 * a retry after a lost answer creates one job; a refused attempt (4xx) binds its key to that body,
 * so the corrected next attempt gets a new one. On success: the job's page.
 */
import { useRef } from 'react';
import { useNavigate } from 'react-router';
import { useCreateJob } from '../api/jobs.ts';
import { ChronosError } from '../api/result.ts';
import { JobForm } from '../components/job-form/JobForm.tsx';
import { buildCreateJob } from '../components/job-form/to-request.ts';
import { emptyValues } from '../components/job-form/values.ts';

const newKey = () => crypto.randomUUID();

export function CreateJobPage() {
  const create = useCreateJob();
  const navigate = useNavigate();
  const idempotencyKey = useRef(newKey());
  const initial = useRef(emptyValues());

  return (
    <div className="max-w-4xl">
      <h1 className="mb-4 text-xl font-semibold">New job</h1>
      <JobForm
        mode="create"
        initial={initial.current}
        submitLabel="Create job"
        busy={create.isPending}
        submitError={create.error ?? undefined}
        cancelTo="/jobs"
        onSubmit={(values) => {
          const { body, errors } = buildCreateJob(values);
          if (!body) return errors;
          create.mutate(
            { body, idempotencyKey: idempotencyKey.current },
            {
              onSuccess: (job) => navigate(`/jobs/${job.jobId}`),
              onError: (error) => {
                // Only a refusal is final; after a lost answer the same key must be sent again.
                const status = error instanceof ChronosError ? error.error.status : 0;
                if (status >= 400 && status < 500) idempotencyKey.current = newKey();
              },
            },
          );
          return undefined;
        }}
      />
    </div>
  );
}
