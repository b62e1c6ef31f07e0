/**
 * What a test of the executor's use case starts from: a job stored with its first run, due at
 * `due`, and the executor's dependencies around them (in-memory stores, one signing secret, a
 * fixed random, a 30 s lease margin unless told otherwise).
 */
import type { Job } from '#core/model';
import type { Clock, HttpInvoker } from '#core/ports';
import { fixedSigningKeys, newSigningSecret } from '#core/signing';
import { newRun } from '#core/use-cases/new-run';
import { InMemoryJobRepository } from './fakes/in-memory-jobs.ts';
import { InMemoryRunRepository } from './fakes/in-memory-runs.ts';

export async function executorWithRun<Invoker extends HttpInvoker>(
  job: Job,
  due: number,
  parts: { invoker: Invoker; clock: Clock; runs?: InMemoryRunRepository; leaseMarginMs?: number },
) {
  const jobs = new InMemoryJobRepository();
  const runs = parts.runs ?? new InMemoryRunRepository();
  await jobs.create(job);
  const run = newRun(job, due, 1, due - 60_000, 7);
  await runs.createIfAbsent(run);
  const deps = {
    jobs,
    runs,
    invoker: parts.invoker,
    signingKeys: fixedSigningKeys([newSigningSecret()]),
    clock: parts.clock,
    random: () => 0.5,
    config: { leaseMarginMs: parts.leaseMarginMs ?? 30_000, owner: 'exec-1' },
  };
  const message = { tenantId: job.tenantId, jobId: job.jobId, scheduledFor: due, attempt: 1, runId: run.runId };
  return { jobs, runs, deps, message };
}
