import { describe, expect, it } from 'vitest';
import { definitionVersionOf } from '#core/definition-version';
import { dueShardOf } from '#core/due-shard';
import { ConflictError, NotFoundError, ValidationError } from '#core/errors';
import { parseUpdateJob } from '#core/update-input';
import { pauseJob } from '#core/use-cases/pause-resume-job';
import { updateJob } from '#core/use-cases/update-job';
import { every, HORIZON_MS, iso, NOW, setup, TENANT } from './manage-fixtures.ts';

const change = (input: Record<string, unknown>, now = NOW) => parseUpdateJob(input, now);

describe('updating a job', () => {
  it('changes name, target, policies and timeout, bumps the version and keeps the schedule position', async () => {
    const { deps, create } = setup();
    const job = await create({ name: 'old', ...every(3600, NOW + 3_600_000) });

    const updated = await updateJob(
      deps,
      TENANT,
      job.jobId,
      change({
        name: 'new',
        target: { url: 'https://example.org/x', method: 'PUT' },
        misfire: 'skip',
        timeoutSeconds: 5,
      }),
      definitionVersionOf(job),
      NOW + 1_000,
    );

    expect(updated).toMatchObject({
      name: 'new',
      target: { url: 'https://example.org/x', method: 'PUT' },
      policies: { misfire: 'skip', overlap: 'allow' },
      timeoutSeconds: 5,
      version: job.version + 1,
      definitionVersion: definitionVersionOf(job) + 1,
      updatedAt: NOW + 1_000,
      nextFireAt: job.nextFireAt,
      dueShard: job.dueShard,
    });
    expect(await deps.jobs.get(TENANT, job.jobId)).toEqual(updated);
  });

  it('refuses a change based on a stale version and writes nothing', async () => {
    const { deps, create } = setup();
    const job = await create({ name: 'old', ...every(3600, NOW + 3_600_000) });

    const stale = updateJob(deps, TENANT, job.jobId, change({ name: 'new' }), definitionVersionOf(job) - 1, NOW);

    await expect(stale).rejects.toThrow(ConflictError);
    expect(await deps.jobs.get(TENANT, job.jobId)).toEqual(job);
  });

  it('reschedules from now on: the new first slot in the due-index and the occurrence count restarted', async () => {
    const { deps, create, runsOf } = setup();
    const job = await create(every(60, NOW - 600_000)); // materialized: NOW (missed slots), NOW+60 s
    const later = NOW + 10_000;

    const updated = await updateJob(
      deps,
      TENANT,
      job.jobId,
      change({ schedule: { type: 'interval', everySeconds: 3600, startAt: iso(later + 600_000) } }, later),
      definitionVersionOf(job),
      later,
    );

    expect(updated).toMatchObject({
      nextFireAt: later + 600_000,
      dueShard: dueShardOf(job.jobId, 4),
      occurrenceCount: 0,
    });
    // Nothing of the old schedule before the change was added, and its future run was discarded.
    expect(runsOf(job.jobId).map((run) => run.scheduledFor)).toEqual([NOW]);
  });

  it('materializes at once a new schedule that is due within the horizon', async () => {
    const { deps, create, runsOf, dispatcher } = setup();
    const job = await create(every(3600, NOW + 3_600_000));
    const sent = dispatcher.sent.length;

    const updated = await updateJob(
      deps,
      TENANT,
      job.jobId,
      change({ schedule: { type: 'cron', expression: '*/30 * * * * *' } }),
      definitionVersionOf(job),
      NOW,
    );

    const slots = [NOW, NOW + 30_000, NOW + 60_000, NOW + 90_000];
    expect(runsOf(job.jobId).map((run) => run.scheduledFor)).toEqual(slots);
    expect(dispatcher.sent.slice(sent).map((s) => s.message.scheduledFor)).toEqual(slots);
    expect(updated).toMatchObject({ nextFireAt: NOW + HORIZON_MS + 30_000, occurrenceCount: 4 });
  });

  it('keeps a paused job out of the due-index and remembers the new first slot for resume', async () => {
    const { deps, create } = setup();
    const job = await create(every(3600, NOW + 3_600_000));
    const paused = await pauseJob(deps, TENANT, job.jobId, NOW);

    const updated = await updateJob(
      deps,
      TENANT,
      job.jobId,
      change({ schedule: { type: 'interval', everySeconds: 60 } }),
      definitionVersionOf(paused),
      NOW,
    );

    expect(updated.status).toBe('PAUSED');
    expect(updated.nextFireAt).toBeUndefined();
    expect(updated.dueShard).toBeUndefined();
    expect(updated.pausedNextFireAt).toBe(NOW);
  });

  it('refuses a schedule that has no occurrence from now on', async () => {
    const { deps, create } = setup();
    const job = await create(every(3600, NOW + 3_600_000));
    const input = change({
      schedule: { type: 'interval', everySeconds: 60, startAt: iso(NOW - 7_200_000), endAt: iso(NOW - 3_600_000) },
    });

    await expect(updateJob(deps, TENANT, job.jobId, input, definitionVersionOf(job), NOW)).rejects.toThrow(
      ValidationError,
    );
    await expect(updateJob(deps, TENANT, job.jobId, input, definitionVersionOf(job), NOW)).rejects.toMatchObject({
      details: [{ field: 'schedule.endAt', reason: 'has no occurrence from now on' }],
    });
    expect(await deps.jobs.get(TENANT, job.jobId)).toEqual(job);
  });

  it('refuses to change a job that has ended', async () => {
    const { deps, create, jobs } = setup();
    const job = await create(every(3600, NOW + 3_600_000));
    await jobs.replace({ ...job, status: 'COMPLETED', version: job.version + 1 }, job.version);

    await expect(
      updateJob(deps, TENANT, job.jobId, change({ name: 'x' }), definitionVersionOf(job), NOW),
    ).rejects.toThrow(ConflictError);
  });

  it("answers NotFound for another tenant's job and leaves it untouched", async () => {
    const { deps, create } = setup();
    const theirs = await create({ name: 'theirs', ...every(3600, NOW + 3_600_000) }, NOW, 'tenant-b');

    await expect(
      updateJob(deps, TENANT, theirs.jobId, change({ name: 'x' }), definitionVersionOf(theirs), NOW),
    ).rejects.toThrow(NotFoundError);
    expect(await deps.jobs.get('tenant-b', theirs.jobId)).toEqual(theirs);
  });
});

describe('parsing a PATCH body', () => {
  it('reports every invalid field at once, with the create-job rules', () => {
    const parse = () =>
      parseUpdateJob({ target: { url: 'ftp://x' }, schedule: { type: 'cron', expression: 'nope' } }, NOW);

    expect(parse).toThrow(ValidationError);
    try {
      parse();
    } catch (error) {
      expect((error as ValidationError).details.map((d) => d.field)).toEqual(['target.url', 'schedule.expression']);
    }
  });

  it('refuses a body that changes nothing', () => {
    expect(() => parseUpdateJob({}, NOW)).toThrow(ValidationError);
  });
});
