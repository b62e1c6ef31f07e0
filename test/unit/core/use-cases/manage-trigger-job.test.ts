import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '#core/errors';
import { cancelJob } from '#core/use-cases/cancel-job';
import { pauseJob } from '#core/use-cases/pause-resume-job';
import { triggerJob } from '#core/use-cases/trigger-job';
import { every, NOW, setup, TENANT } from './manage-fixtures.ts';

const HOUR = 3_600_000;

describe('triggering a job', () => {
  it('creates one run for now, sends it without delay and leaves the job untouched', async () => {
    const { deps, create, dispatcher, runsOf } = setup();
    const job = await create(every(3600, NOW + HOUR));
    const at = NOW + 1_234;

    const { run, replayed } = await triggerJob(deps, TENANT, job.jobId, at);

    expect(replayed).toBe(false);
    expect(run).toMatchObject({ scheduledFor: at, attempt: 1, status: 'QUEUED' });
    expect(runsOf(job.jobId).map((r) => r.runId)).toEqual([run.runId]);
    expect(dispatcher.sent).toEqual([
      { message: expect.objectContaining({ runId: run.runId }), releaseAt: expect.any(Number) },
    ]);
    expect(await deps.jobs.get(TENANT, job.jobId)).toEqual(job);
  });

  it('moves off an instant the schedule fires at, so neither run swallows the other', async () => {
    const { deps, create } = setup();
    const job = await create(every(3600, NOW + HOUR));

    const { run } = await triggerJob(deps, TENANT, job.jobId, NOW + HOUR);

    expect(run.scheduledFor).toBe(NOW + HOUR + 1);
  });

  it('gives two triggers in the same millisecond a run each', async () => {
    const { deps, create, runsOf } = setup();
    const job = await create(every(3600, NOW + HOUR));

    const first = await triggerJob(deps, TENANT, job.jobId, NOW + 5);
    const second = await triggerJob(deps, TENANT, job.jobId, NOW + 5);

    expect(second.run.scheduledFor).toBe(first.run.scheduledFor + 1);
    expect(runsOf(job.jobId)).toHaveLength(2);
  });

  it('answers a retry with the same Idempotency-Key with the run of the first request', async () => {
    const { deps, create, runs, runsOf } = setup();
    const job = await create(every(3600, NOW + HOUR));
    const first = await triggerJob(deps, TENANT, job.jobId, NOW + 5, 'key-1');
    await runs.claim(first.run, { owner: 'e', expiresAt: NOW + HOUR, now: NOW + 6, takeOverExpired: true });
    const sentBefore = deps.dispatcher.sent.length;

    const retry = await triggerJob(deps, TENANT, job.jobId, NOW + 60_000, 'key-1');
    const other = await triggerJob(deps, TENANT, job.jobId, NOW + 60_000, 'key-2');

    expect(retry).toMatchObject({ replayed: true, run: { runId: first.run.runId, status: 'RUNNING' } });
    expect(other.replayed).toBe(false);
    expect(runsOf(job.jobId)).toHaveLength(2);
    expect(deps.dispatcher.sent.length).toBe(sentBefore + 1);
  });

  it('sends a replayed run again while it is still QUEUED, in case the first request died before sending', async () => {
    const { deps, create, dispatcher } = setup();
    const job = await create(every(3600, NOW + HOUR));
    const first = await triggerJob(deps, TENANT, job.jobId, NOW, 'key-1');

    await triggerJob(deps, TENANT, job.jobId, NOW + 1_000, 'key-1');

    expect(dispatcher.sent.map((s) => s.message.runId)).toEqual([first.run.runId, first.run.runId]);
  });

  it('refuses a cancelled job and a one-time job that has not run yet, paused or not', async () => {
    const { deps, create, runs } = setup();
    const cancelled = await create(every(3600, NOW + HOUR));
    await cancelJob(deps, TENANT, cancelled.jobId, NOW);
    const pending = await create({ schedule: { type: 'once', at: '2027-01-01T00:00:00Z' } });
    const paused = await create({ schedule: { type: 'once', at: '2027-01-01T00:00:00Z' } });
    await pauseJob(deps, TENANT, paused.jobId, NOW);

    await expect(triggerJob(deps, TENANT, cancelled.jobId, NOW)).rejects.toThrow(ConflictError);
    await expect(triggerJob(deps, TENANT, pending.jobId, NOW)).rejects.toThrow(ConflictError);
    await expect(triggerJob(deps, TENANT, paused.jobId, NOW)).rejects.toThrow(ConflictError);
    expect(runs.all()).toEqual([]);
  });

  it('never answers a key with the run another key made at the same instant: it moves on, key and all', async () => {
    const { deps, create, runs, runsOf } = setup();
    const job = await create(every(3600, NOW + HOUR));
    // Both requests bound their key to NOW + 5 before either made its run.
    await runs.bindTriggerKey(job, 'key-b', NOW + 5, NOW + 5, Math.floor(NOW / 1000) + 3600);
    const first = await triggerJob(deps, TENANT, job.jobId, NOW + 5, 'key-a');

    const second = await triggerJob(deps, TENANT, job.jobId, NOW + 5, 'key-b');
    const retried = await triggerJob(deps, TENANT, job.jobId, NOW + 9, 'key-b');

    expect(second).toMatchObject({ replayed: false, run: { scheduledFor: NOW + 6, triggerKey: 'key-b' } });
    expect(second.run.runId).not.toBe(first.run.runId);
    expect(retried).toMatchObject({ replayed: true, run: { runId: second.run.runId } });
    expect(runsOf(job.jobId)).toHaveLength(2);
  });

  it("answers NotFound for another tenant's job and creates no run", async () => {
    const { deps, create, runs } = setup();
    const theirs = await create(every(3600, NOW + HOUR), NOW, 'tenant-b');

    await expect(triggerJob(deps, TENANT, theirs.jobId, NOW)).rejects.toThrow(NotFoundError);
    expect(runs.all()).toHaveLength(0);
  });
});
