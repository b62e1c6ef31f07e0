/** Shared setup of the job management unit tests: in-memory ports and jobs created the real way. */
import { parseCreateJob } from '#core/job-input';
import type { StoredJob } from '#core/ports';
import { createJob } from '#core/use-cases/create-job';
import { RecordingDispatcher, sequentialIds } from '../../../support/fakes/fakes.ts';
import { InMemoryJobRepository } from '../../../support/fakes/in-memory-jobs.ts';
import { InMemoryRunRepository } from '../../../support/fakes/in-memory-runs.ts';

export const NOW = Date.parse('2026-06-01T12:00:00Z');
export const TENANT = 'tenant-a';
export const HORIZON_MS = 90_000;
export const iso = (ms: number) => new Date(ms).toISOString();

export function setup() {
  const jobs = new InMemoryJobRepository();
  const runs = new InMemoryRunRepository();
  const dispatcher = new RecordingDispatcher();
  const deps = {
    jobs,
    runs,
    dispatcher,
    ids: sequentialIds(),
    config: { horizonMs: HORIZON_MS, retentionDays: 7, shardCount: 4 },
  };
  /** Creates a job through the create-job use case (so it is materialized as in production). */
  const create = (input: Record<string, unknown>, now = NOW, tenantId = TENANT): Promise<StoredJob> =>
    createJob(
      deps,
      tenantId,
      parseCreateJob({ target: { url: 'https://example.com/hook' }, ...input } as never, now),
      now,
    );
  /** The job's runs, earliest first. */
  const runsOf = (jobId: string) =>
    runs
      .all()
      .filter((run) => run.jobId === jobId)
      .sort((a, b) => a.scheduledFor - b.scheduledFor);
  return { jobs, runs, dispatcher, deps, create, runsOf };
}

/** An interval schedule starting at `startAt`. */
export const every = (seconds: number, startAt: number, extra: Record<string, unknown> = {}) => ({
  schedule: { type: 'interval', everySeconds: seconds, startAt: iso(startAt) },
  ...extra,
});
