import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '#core/errors';
import { fixedSigningKeys, newSigningSecret } from '#core/signing';
import { cancelJob } from '#core/use-cases/cancel-job';
import { executeRun } from '#core/use-cases/execute-run';
import { pauseJob } from '#core/use-cases/pause-resume-job';
import { scanDueJobs } from '#core/use-cases/scan-due-jobs';
import { FakeClock, ScriptedInvoker } from '../../../support/fakes/fakes.ts';
import { every, NOW, setup, TENANT } from './manage-fixtures.ts';

const HOUR = 3_600_000;

describe('cancelling a job', () => {
  it('makes it CANCELLED and takes it out of the due-index for good', async () => {
    const { deps, create } = setup();
    const job = await create(every(60, NOW + HOUR));

    const cancelled = await cancelJob(deps, TENANT, job.jobId, NOW);

    expect(cancelled).toMatchObject({ status: 'CANCELLED', version: job.version + 1 });
    expect(cancelled.nextFireAt).toBeUndefined();
    expect(cancelled.dueShard).toBeUndefined();
    expect(await scanDueJobs(deps, NOW + 2 * HOUR)).toMatchObject({ jobsFound: 0, runsCreated: 0 });
  });

  it('cancels a paused job and forgets its pause state', async () => {
    const { deps, create } = setup();
    const job = await create(every(60, NOW + HOUR));
    await pauseJob(deps, TENANT, job.jobId, NOW);

    const cancelled = await cancelJob(deps, TENANT, job.jobId, NOW + 1);

    expect(cancelled.status).toBe('CANCELLED');
    expect(cancelled.pausedAt).toBeUndefined();
    expect(cancelled.pausedNextFireAt).toBeUndefined();
  });

  it('is idempotent: cancelling again changes nothing and answers the same job', async () => {
    const { deps, create } = setup();
    const job = await create(every(60, NOW + HOUR));
    const first = await cancelJob(deps, TENANT, job.jobId, NOW);

    const second = await cancelJob(deps, TENANT, job.jobId, NOW + 5_000);

    expect(second).toEqual(first);
  });

  it('refuses to cancel a job that already completed', async () => {
    const { deps, create, jobs } = setup();
    const job = await create(every(60, NOW + HOUR));
    await jobs.replace({ ...job, status: 'COMPLETED', version: job.version + 1 }, job.version);

    await expect(cancelJob(deps, TENANT, job.jobId, NOW)).rejects.toThrow(ConflictError);
  });

  it("answers NotFound for another tenant's job and leaves it ACTIVE", async () => {
    const { deps, create } = setup();
    const theirs = await create(every(60, NOW + HOUR), NOW, 'tenant-b');

    await expect(cancelJob(deps, TENANT, theirs.jobId, NOW)).rejects.toThrow(NotFoundError);
    expect((await deps.jobs.get('tenant-b', theirs.jobId))?.status).toBe('ACTIVE');
  });

  it('leaves a run queued before the cancel to the executor, which records it CANCELLED without a call', async () => {
    const { deps, create, runs, runsOf } = setup();
    const job = await create({ schedule: { type: 'once', at: new Date(NOW + 5_000).toISOString() } });
    const [queued] = runsOf(job.jobId);
    if (!queued) throw new Error('expected the run to be materialized at creation');
    await cancelJob(deps, TENANT, job.jobId, NOW + 1_000);
    const clock = new FakeClock(NOW + 4_500);
    const invoker = new ScriptedInvoker(clock, () => ({
      kind: 'response',
      status: 200,
      bodyExcerpt: '',
      durationMs: 1,
    }));

    const result = await executeRun(
      {
        jobs: deps.jobs,
        runs,
        invoker,
        signingKeys: fixedSigningKeys([newSigningSecret()]),
        clock,
        random: () => 0.5,
        config: { leaseMarginMs: 30_000, owner: 'e' },
      },
      { tenantId: TENANT, jobId: job.jobId, scheduledFor: queued.scheduledFor, attempt: 1, runId: queued.runId },
    );

    expect(result.kind).toBe('cancelled');
    expect(invoker.requests).toHaveLength(0);
    expect(runsOf(job.jobId)).toEqual([expect.objectContaining({ status: 'CANCELLED', errorType: 'cancelled' })]);
  });
});
