import { describe, expect, it } from 'vitest';
import { parseCreateJob } from '#core/job-input';
import { DEFAULT_SWEEP_GRACE_MS } from '#core/runs/send-runs';
import { createJob as createJobUseCase } from '#core/use-cases/create-job';
import { materializeOccurrences } from '#core/use-cases/materialize-occurrences';
import { newRun } from '#core/use-cases/new-run';
import { scanDueJobs } from '#core/use-cases/scan-due-jobs';
import { sweepRuns } from '#core/use-cases/sweep-runs';
import { iso, NOW, setup } from './manage-fixtures.ts';

type Deps = ReturnType<typeof setup>['deps'];
const createJob = (deps: Deps, tenantId: string, input: Parameters<typeof parseCreateJob>[0], now: number) =>
  createJobUseCase(deps, tenantId, parseCreateJob(input, now), now);

const once = (at?: number) => ({
  target: { url: 'https://example.com/hook' },
  schedule: { type: 'once' as const, ...(at === undefined ? {} : { at: iso(at) }) },
});

describe('creating a job', () => {
  it('materializes and enqueues a job due now without waiting for a scan', async () => {
    const { deps, runs, dispatcher } = setup();

    const job = await createJob(deps, 'tenant-a', once(), NOW);

    expect(runs.all()).toHaveLength(1);
    expect(runs.all()[0]).toMatchObject({
      tenantId: 'tenant-a',
      jobId: job.jobId,
      scheduledFor: NOW,
      attempt: 1,
      status: 'QUEUED',
    });
    expect(dispatcher.sent).toEqual([
      { message: expect.objectContaining({ jobId: job.jobId, scheduledFor: NOW }), releaseAt: NOW },
    ]);
    expect(job.nextFireAt).toBeUndefined();
    expect(job.dueShard).toBeUndefined();
    expect(job.occurrenceCount).toBe(1);
  });

  it('answers with the job exactly as stored after materializing, without reading it back', async () => {
    const { deps, jobs } = setup();
    let reads = 0;
    const get = jobs.get.bind(jobs);
    jobs.get = (tenantId, jobId) => {
      reads++;
      return get(tenantId, jobId);
    };
    const recurring = {
      target: { url: 'https://example.com/hook' },
      schedule: { type: 'interval' as const, everySeconds: 30, startAt: iso(NOW) },
    };

    for (const input of [once(), recurring]) {
      const job = await createJob(deps, 'tenant-a', input, NOW);
      expect(job).toEqual(await get('tenant-a', job.jobId));
    }
    expect(reads).toBe(0);
  });

  it('reads the job back when a racing scanner advanced it first', async () => {
    const { deps, jobs } = setup();
    const advance = jobs.advance.bind(jobs);
    jobs.advance = async (job, change) => {
      // The scanner got there first: it advanced the job, so this advance finds a newer version.
      await advance(job, change);
      return false;
    };

    const recurring = {
      target: { url: 'https://example.com/hook' },
      schedule: { type: 'interval' as const, everySeconds: 30, startAt: iso(NOW) },
    };
    const job = await createJob(deps, 'tenant-a', recurring, NOW);

    expect(job).toEqual(await jobs.get('tenant-a', job.jobId));
    expect(job.version).toBe(2);
  });

  it('writes a one-time job due soon after its run, already past its occurrence, and sends the run last', async () => {
    const { deps, jobs, runs, dispatcher } = setup();
    const steps: string[] = [];
    const create = jobs.create.bind(jobs);
    jobs.create = async (job) => {
      steps.push(`job (nextFireAt ${job.nextFireAt}, dueShard ${job.dueShard}) after ${runs.all().length} run`);
      await create(job);
    };
    const dispatch = dispatcher.dispatch.bind(dispatcher);
    dispatcher.dispatch = async (messages) => {
      steps.push(`send after ${jobs.items.size} job`);
      await dispatch(messages);
    };

    const job = await createJob(deps, 'tenant-a', once(NOW + 5_000), NOW);

    // No due-index entry written, so no advance and no removal: three writes fewer.
    expect(steps).toEqual(['job (nextFireAt undefined, dueShard undefined) after 1 run', 'send after 1 job']);
    expect(job).toMatchObject({ version: 1, definitionVersion: 1, occurrenceCount: 1, status: 'ACTIVE' });
    expect(job).toEqual(await jobs.get('tenant-a', job.jobId));
    // The run keeps its own sweep entry: a create that dies before its send leaves it to the sweep.
    expect(runs.all()[0]).toMatchObject({ status: 'QUEUED', sweepAt: NOW + 5_000 + DEFAULT_SWEEP_GRACE_MS });
  });

  it('leaves the run of a create that died before writing its job to the sweep', async () => {
    const { deps, jobs, runs, dispatcher } = setup();
    jobs.create = async () => Promise.reject(new Error('the API Lambda timed out'));

    await expect(createJob(deps, 'tenant-a', once(NOW), NOW)).rejects.toThrow('timed out');

    expect(dispatcher.sent).toEqual([]);
    expect(runs.all()).toHaveLength(1);
    const swept = await sweepRuns({ runs, dispatcher, config: deps.config }, NOW + DEFAULT_SWEEP_GRACE_MS);
    expect(swept.resent).toBe(1);
  });

  it('retried with the same job id, sends the run the first attempt put, once the job is written', async () => {
    const { deps, jobs, runs, dispatcher } = setup();
    const create = jobs.create.bind(jobs);
    jobs.create = async () => Promise.reject(new Error('the API Lambda timed out'));
    const input = parseCreateJob(once(NOW + 2_000), NOW);
    await expect(createJobUseCase(deps, 'tenant-a', input, NOW, 'JOB-1')).rejects.toThrow();
    jobs.create = create;

    const job = await createJobUseCase(deps, 'tenant-a', input, NOW + 500, 'JOB-1');

    expect(runs.all()).toHaveLength(1);
    expect(dispatcher.sent.map((s) => s.message.runId)).toEqual([runs.all()[0]?.runId]);
    expect(job.nextFireAt).toBeUndefined();
  });

  it('goes through the due-index when the first attempt’s run has ended meanwhile, so the scan settles the job', async () => {
    const { deps, jobs, runs } = setup();
    const input = parseCreateJob(once(NOW + 2_000), NOW);
    const create = jobs.create.bind(jobs);
    jobs.create = async () => Promise.reject(new Error('the API Lambda timed out'));
    await expect(createJobUseCase(deps, 'tenant-a', input, NOW, 'JOB-1')).rejects.toThrow();
    jobs.create = create;
    // The sweep sent the orphan, and the executor, finding no job, ended it CANCELLED.
    const [orphan] = runs.all();
    if (!orphan) throw new Error('run expected');
    await runs.claim(orphan, { owner: 'e', expiresAt: NOW + 90_000, now: NOW + 61_000, takeOverExpired: true });
    await runs.complete(orphan, 'e', { status: 'CANCELLED', errorType: 'cancelled', completedAt: NOW + 61_000 });

    const job = await createJobUseCase(deps, 'tenant-a', input, NOW + 70_000, 'JOB-1');

    // In the due-index path the existing run's verdict (cancelled: fire again) makes attempt 2.
    expect(job.nextFireAt).toBeUndefined();
    expect(runs.all().map((run) => [run.attempt, run.status])).toEqual([
      [1, 'CANCELLED'],
      [2, 'QUEUED'],
    ]);
  });

  it("marks the run of a recurring schedule's final occurrence, and only that one", async () => {
    const { deps, runs } = setup();
    await createJob(
      deps,
      'tenant-a',
      {
        target: { url: 'https://example.com/hook' },
        schedule: { type: 'interval', everySeconds: 10, startAt: iso(NOW), maxRuns: 3 },
      },
      NOW,
    );
    await createJob(deps, 'tenant-a', once(), NOW);

    const marks = runs
      .all()
      .filter((run) => run.scheduleType === 'interval')
      .sort((a, b) => a.scheduledFor - b.scheduledFor)
      .map((run) => run.finalOccurrence ?? false);
    expect(marks).toEqual([false, false, true]);
    expect(runs.all().find((run) => run.scheduleType === 'once')?.finalOccurrence).toBeUndefined();
  });

  it('delays the message of a job due within the horizon until its due second', async () => {
    const { deps, dispatcher } = setup();

    await createJob(deps, 'tenant-a', once(NOW + 5_500), NOW);

    expect(dispatcher.sent[0]?.releaseAt).toBe(NOW + 5_500);
  });

  it('leaves a job due beyond the horizon in the due-index for the scanner', async () => {
    const { deps, runs, dispatcher } = setup();

    const job = await createJob(deps, 'tenant-a', once(NOW + 3_600_000), NOW);

    expect(runs.all()).toHaveLength(0);
    expect(dispatcher.sent).toHaveLength(0);
    expect(job.nextFireAt).toBe(NOW + 3_600_000);
    expect(job.dueShard).toMatch(/^due#0[0-3]$/);
  });
});

describe('scanning', () => {
  it('materializes a job once it comes within the horizon, and only then', async () => {
    const { deps, runs } = setup();
    const job = await createJob(deps, 'tenant-a', once(NOW + 3_600_000), NOW);

    await scanDueJobs(deps, NOW + 3_600_000 - 200_000);
    expect(runs.all()).toHaveLength(0);

    const result = await scanDueJobs(deps, NOW + 3_600_000 - 60_000);
    expect(result).toMatchObject({ jobsFound: 1, runsCreated: 1, messagesSent: 1, jobsAdvanced: 1, shards: 4 });
    expect(runs.all()[0]?.jobId).toBe(job.jobId);
  });

  it('completes a recurring job whose schedule ended during an outage with every missed occurrence skipped', async () => {
    const { deps, runs, dispatcher, jobs } = setup();
    const shifts: string[] = [];
    const counted = {
      ...deps,
      jobCounts: {
        shift: async (tenantId: string, from: string | undefined, to: string) => {
          shifts.push(`${tenantId}:${from}->${to}`);
        },
        add: async () => undefined,
        read: async () => ({}),
      },
    };
    const job = await createJob(
      deps,
      'tenant-a',
      {
        target: { url: 'https://example.com/hook' },
        schedule: { type: 'interval', everySeconds: 60, startAt: iso(NOW + 3_600_000), endAt: iso(NOW + 3_900_000) },
        misfire: 'skip',
      },
      NOW,
    );

    // The scanner comes back an hour after the schedule ended: skip drops every missed occurrence.
    await scanDueJobs(counted, NOW + 7_200_000);

    expect(runs.all()).toHaveLength(0);
    expect(dispatcher.sent).toHaveLength(0);
    expect((await jobs.get('tenant-a', job.jobId))?.status).toBe('COMPLETED');
    expect(shifts).toEqual(['tenant-a:ACTIVE->COMPLETED']);
  });

  it('creates one run per occurrence when several scanners race on the same jobs', async () => {
    const { deps, runs, dispatcher, jobs } = setup();
    for (let i = 0; i < 50; i++) await createJob(deps, 'tenant-a', once(NOW + 3_600_000 + i), NOW);
    const later = NOW + 3_600_000 - 30_000;

    await Promise.all([scanDueJobs(deps, later), scanDueJobs(deps, later), scanDueJobs(deps, later)]);

    expect(runs.all()).toHaveLength(50);
    expect(new Set(dispatcher.sent.map((s) => s.message.runId)).size).toBe(50);
    expect([...jobs.items.values()].every((j) => j.nextFireAt === undefined)).toBe(true);
  });

  it('leaves a queued run whose creator died before sending it to the sweep, which sends it after the grace', async () => {
    const { deps, runs, dispatcher, jobs } = setup();
    const job = await createJob(deps, 'tenant-a', once(NOW + 3_600_000), NOW);
    const due = { ...(await jobs.get('tenant-a', job.jobId)), nextFireAt: NOW + 3_600_000 } as never;
    // The crashed materializer got as far as the conditional put, a second ago, and never sent it.
    const crashedAt = NOW + 3_600_000 - 60_000;
    const orphan = newRun({ tenantId: 'tenant-a', jobId: job.jobId }, NOW + 3_600_000, 1, crashedAt, 7);
    await runs.createIfAbsent(orphan);

    const result = await materializeOccurrences(deps, [due], crashedAt + 1_000);

    expect(result).toMatchObject({ runsCreated: 0, messagesSent: 0, jobsAdvanced: 1 });
    expect((await jobs.get('tenant-a', job.jobId))?.nextFireAt).toBeUndefined();
    const sweep = { runs, dispatcher, config: deps.config };
    expect(await sweepRuns(sweep, NOW + 3_600_000 + DEFAULT_SWEEP_GRACE_MS - 1)).toMatchObject({ resent: 0 });
    expect(await sweepRuns(sweep, NOW + 3_600_000 + DEFAULT_SWEEP_GRACE_MS)).toMatchObject({ resent: 1 });
    expect(dispatcher.sent.map((s) => s.message.runId)).toEqual([orphan.runId]);
  });

  it('advances the job when its send fails, and leaves the run in the sweep index for the sweep to send', async () => {
    const { deps, runs, jobs } = setup();
    const job = await createJob(deps, 'tenant-a', once(NOW + 3_600_000), NOW);
    const due = { ...(await jobs.get('tenant-a', job.jobId)), nextFireAt: NOW + 3_600_000 } as never;
    const unsent: string[] = [];
    const sqsDown = {
      dispatch: async () => Promise.reject(new Error('SQS is down')),
      unsent: (messages: Array<{ message: { runId: string } }>) => unsent.push(...messages.map((m) => m.message.runId)),
    };
    const at = NOW + 3_600_000 - 30_000;

    const result = await materializeOccurrences({ ...deps, dispatcher: sqsDown }, [due], at);

    expect(result).toMatchObject({ runsCreated: 1, messagesSent: 0, jobsAdvanced: 1 });
    expect(unsent).toEqual([runs.all()[0]?.runId]);
    expect(runs.all()[0]?.sweepAt).toBe(NOW + 3_600_000 + DEFAULT_SWEEP_GRACE_MS);
  });

  it('does not send again a run that an executor has already claimed', async () => {
    const { deps, runs, dispatcher, jobs } = setup();
    const job = await createJob(deps, 'tenant-a', once(NOW + 3_600_000), NOW);
    const due = { ...(await jobs.get('tenant-a', job.jobId)), nextFireAt: NOW + 3_600_000 } as never;
    const claimed = newRun({ tenantId: 'tenant-a', jobId: job.jobId }, NOW + 3_600_000, 1, NOW, 7);
    await runs.createIfAbsent(claimed);
    await runs.claim(claimed, { owner: 'e', expiresAt: NOW + 3_700_000, now: NOW + 3_600_000, takeOverExpired: true });

    const result = await materializeOccurrences(deps, [due], NOW + 3_600_000 - 30_000);

    expect(result.messagesSent).toBe(0);
    expect(dispatcher.sent).toEqual([]);
  });
});
