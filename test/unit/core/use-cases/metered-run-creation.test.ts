/**
 * Every path that creates runs outside the schedule takes tokens from the tenant's trigger bucket
 * before it writes anything, and writes nothing when refused.
 */
import { describe, expect, it } from 'vitest';
import { definitionVersionOf } from '#core/definition-version';
import { ConflictError } from '#core/errors';
import type { RateLimiter } from '#core/tenants/ports';
import { RateLimitedError } from '#core/tenants/quota-errors';
import { DEFAULT_QUOTAS } from '#core/tenants/quotas';
import { runCreationMeter } from '#core/tenants/run-creation-meter';
import { gcraDecide } from '#core/tenants/token-bucket';
import { parseUpdateJob } from '#core/update-input';
import { redriveRun } from '#core/use-cases/dead-letters';
import { pauseJob, resumeJob } from '#core/use-cases/pause-resume-job';
import { triggerJob } from '#core/use-cases/trigger-job';
import { updateJob } from '#core/use-cases/update-job';
import { every, NOW, setup, TENANT } from './manage-fixtures.ts';

const HOUR = 3_600_000;

/** The GCRA bucket in memory, recording what each request asked for. */
function bucket(perSecond: number, burst: number) {
  let tat: number | undefined;
  const asked: number[] = [];
  const limiter: RateLimiter = {
    async take(_tenantId, _limits, now, count = 1) {
      asked.push(count);
      const decision = gcraDecide(tat, { perSecond, burst }, now, count);
      if (!decision.allowed) return decision;
      tat = decision.tat;
      return { allowed: true };
    },
  };
  const quotas = { ...DEFAULT_QUOTAS, triggersPerSecond: perSecond, triggerBurst: burst };
  return { asked, meter: (now: number) => runCreationMeter(limiter, TENANT, async () => quotas, now) };
}

describe('metered run creation', () => {
  it('refuses a trigger over the bucket with Retry-After and creates nothing', async () => {
    const { deps, create, runsOf } = setup();
    const job = await create(every(3600, NOW + HOUR));
    const { meter } = bucket(1, 2);

    await triggerJob({ ...deps, meter: meter(NOW) }, TENANT, job.jobId, NOW);
    await triggerJob({ ...deps, meter: meter(NOW) }, TENANT, job.jobId, NOW);
    const refused = triggerJob({ ...deps, meter: meter(NOW) }, TENANT, job.jobId, NOW);

    await expect(refused).rejects.toBeInstanceOf(RateLimitedError);
    await expect(refused).rejects.toMatchObject({ retryAfterSeconds: 1, subject: 'runs' });
    expect(runsOf(job.jobId)).toHaveLength(2);
    // A second later one token is back.
    await triggerJob({ ...deps, meter: meter(NOW + 1_000) }, TENANT, job.jobId, NOW + 1_000);
    expect(runsOf(job.jobId)).toHaveLength(3);
  });

  it('refuses a trigger of a PAUSED job (409) without taking a token', async () => {
    const { deps, create, runsOf } = setup();
    const job = await create(every(3600, NOW + HOUR));
    await pauseJob(deps, TENANT, job.jobId, NOW);
    const { meter, asked } = bucket(1, 2);

    await expect(triggerJob({ ...deps, meter: meter(NOW) }, TENANT, job.jobId, NOW)).rejects.toThrow(ConflictError);
    expect(asked).toEqual([]);
    expect(runsOf(job.jobId)).toEqual([]);
  });

  it('takes one token per catch-up run at resume, and leaves the job PAUSED with nothing created when refused', async () => {
    const { deps, create, runsOf } = setup();
    const job = await create(every(60, NOW + 60_000, { misfire: 'fire_all' }));
    await pauseJob(deps, TENANT, job.jobId, NOW);
    const later = NOW + 10 * 60_000 + 30_000; // ten occurrences missed
    const { meter, asked } = bucket(1, 5);
    // Ten runs are more than the burst: they need the whole bucket, and one token is gone.
    await meter(later).take(1);

    await expect(resumeJob(deps, TENANT, job.jobId, later, meter(later))).rejects.toBeInstanceOf(RateLimitedError);
    expect(asked).toEqual([1, 10]);
    expect((await deps.jobs.get(TENANT, job.jobId))?.status).toBe('PAUSED');
    expect(runsOf(job.jobId)).toEqual([]);

    // Once the bucket is full again, the catch-up empties it.
    await resumeJob(deps, TENANT, job.jobId, later + 5_000, meter(later + 5_000));
    expect(asked).toEqual([1, 10, 10]);
    await expect(meter(later + 5_000).take(1)).rejects.toBeInstanceOf(RateLimitedError);
    expect(runsOf(job.jobId).filter((run) => run.scheduledFor <= later)).toHaveLength(10);
  });

  it('takes a token for a PATCHed schedule materialized at once, none for one beyond the horizon', async () => {
    const { deps, create, runsOf } = setup();
    const job = await create(every(3600, NOW + HOUR));
    const { meter, asked } = bucket(1, 1);
    const soon = parseUpdateJob({ schedule: { type: 'once', at: new Date(NOW + 5_000).toISOString() } }, NOW);
    const far = parseUpdateJob({ schedule: { type: 'once', at: new Date(NOW + HOUR).toISOString() } }, NOW);

    const moved = await updateJob(deps, TENANT, job.jobId, far, definitionVersionOf(job), NOW, meter(NOW));
    const soonJob = await updateJob(deps, TENANT, job.jobId, soon, definitionVersionOf(moved), NOW, meter(NOW));
    expect(asked).toEqual([1]);
    expect(runsOf(job.jobId).map((run) => run.scheduledFor)).toEqual([NOW + 5_000]);

    const again = updateJob(deps, TENANT, job.jobId, soon, definitionVersionOf(soonJob), NOW, meter(NOW));
    await expect(again).rejects.toBeInstanceOf(RateLimitedError);
    expect((await deps.jobs.get(TENANT, job.jobId))?.version).toBe(soonJob.version);
  });

  it('takes a token to re-drive a dead-lettered run, and creates nothing when refused', async () => {
    const { deps, create, runs, runsOf } = setup();
    const job = await create(every(3600, NOW + 1_000));
    const [run] = runsOf(job.jobId);
    if (!run) throw new Error('no run');
    await runs.deadLetter(run, 'test', NOW + 2_000);
    const { meter } = bucket(1, 1);
    await triggerJob({ ...deps, meter: meter(NOW + 2_000) }, TENANT, job.jobId, NOW + 2_000);

    await expect(
      redriveRun({ ...deps, meter: meter(NOW + 2_000) }, TENANT, run.runId, NOW + 2_000),
    ).rejects.toBeInstanceOf(RateLimitedError);
    expect(runsOf(job.jobId).filter((r) => r.scheduledFor === run.scheduledFor)).toHaveLength(1);
    const redriven = await redriveRun({ ...deps, meter: meter(NOW + 3_000) }, TENANT, run.runId, NOW + 3_000);
    expect(redriven.attempt).toBe(2);
  });
});
