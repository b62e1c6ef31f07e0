/**
 * One job never hurts the rest: the scanner isolates failures per job and per shard, and
 * quarantines a job whose own data makes it fail (in-memory ports; the DynamoDB and end-to-end
 * versions are in test/integration/scanner-isolation.test.ts and test/e2e/blast-radius.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { definitionVersionOf } from '#core/definition-version';
import type { StoredJob } from '#core/ports';
import { parseUpdateJob } from '#core/update-input';
import { pauseJob, resumeJob } from '#core/use-cases/pause-resume-job';
import { getJob, upcomingOccurrences } from '#core/use-cases/read-jobs';
import { scanDueJobs } from '#core/use-cases/scan-due-jobs';
import { sweepRuns } from '#core/use-cases/sweep-runs';
import { updateJob } from '#core/use-cases/update-job';
import { jobView } from '#core/views';
import { unplannableJobFixture } from '../../../support/job-fixture.ts';
import { every, iso, NOW, setup, TENANT } from './manage-fixtures.ts';

/** A job as old data left it: stored straight into the repository, due now in `dueShard`. */
function poisonJob(dueShard: string, overrides: Partial<StoredJob> = {}): StoredJob {
  return unplannableJobFixture(NOW, { tenantId: TENANT, jobId: '01POISON0000000000000000000', dueShard, ...overrides });
}

/** An error as the AWS SDK raises it for throttling: transient, never the job's fault. */
function throttled(): Error {
  return Object.assign(new Error('Rate of requests exceeds the allowed throughput'), {
    name: 'ProvisionedThroughputExceededException',
  });
}

/** Healthy jobs in every shard (due within the horizon, beyond what create materialized), and their shards. */
async function healthyJobs(create: ReturnType<typeof setup>['create']) {
  const jobs: StoredJob[] = [];
  for (let i = 0; i < 12; i++) jobs.push(await create(every(3600, NOW + 120_000 + i * 1_000)));
  return jobs;
}

describe('a job that cannot be planned', () => {
  it('is quarantined with its reason while every other job of its shard and of the others is materialized', async () => {
    const { deps, jobs, create, runsOf } = setup();
    const healthy = await healthyJobs(create);
    const shard = healthy[0]?.dueShard as string;
    const poison = poisonJob(shard);
    jobs.items.set(`${TENANT}/${poison.jobId}`, poison);
    const at = NOW + 60_000;

    const result = await scanDueJobs(deps, at);

    for (const job of healthy) expect(runsOf(job.jobId).map((run) => run.scheduledFor)).toEqual([job.nextFireAt]);
    expect(result.quarantined).toEqual([
      { tenantId: TENANT, jobId: poison.jobId, reason: expect.stringContaining('RangeError') },
    ]);
    expect(result.perShard.every((pass) => pass.error === undefined)).toBe(true);
    const stored = await jobs.get(TENANT, poison.jobId);
    expect(stored).toMatchObject({ status: 'ACTIVE', nextFireAt: NOW, version: 2, quarantine: { at } });
    expect(stored?.quarantine?.reason).toContain('Invalid time zone');
    expect(stored?.dueShard).toBeUndefined();
    expect(runsOf(poison.jobId)).toEqual([]);
    // Out of the due-index: the next pass does not look at it again.
    expect((await scanDueJobs(deps, at + 1_000)).quarantined).toEqual([]);
  });

  it('refuses to plan a schedule whose stored time zone the runtime no longer knows', async () => {
    const { planFiring } = await import('#core/fire-plan');
    const poison = poisonJob('due#00') as StoredJob & { nextFireAt: number };

    expect(() => planFiring(poison, NOW, NOW + 90_000)).toThrow(RangeError);
  });

  it('can be read before the scanner has quarantined it: no upcoming occurrence, no error', async () => {
    const { deps, jobs } = setup();
    jobs.items.set(`${TENANT}/01POISON0000000000000000000`, poisonJob('due#01'));

    const { job } = await getJob(deps, TENANT, '01POISON0000000000000000000');

    expect(job.quarantine).toBeUndefined();
    expect(upcomingOccurrences(job, NOW)).toEqual([]);
  });

  it('shows its quarantine in its view, with no upcoming occurrence and nothing that fails to render', async () => {
    const { deps, jobs } = setup();
    jobs.items.set(`${TENANT}/01POISON0000000000000000000`, poisonJob('due#01'));
    await scanDueJobs(deps, NOW);

    const { job } = await getJob(deps, TENANT, '01POISON0000000000000000000');

    expect(upcomingOccurrences(job, NOW)).toEqual([]);
    expect(jobView(job, undefined, upcomingOccurrences(job, NOW))).toMatchObject({
      status: 'ACTIVE',
      quarantine: { reason: expect.stringContaining('Invalid time zone'), at: iso(NOW) },
      upcoming: [],
    });
  });

  it('leaves quarantine with a new schedule (PATCH), and fires on it', async () => {
    const { deps, jobs, runsOf } = setup();
    const poison = poisonJob('due#01');
    jobs.items.set(`${TENANT}/${poison.jobId}`, poison);
    await scanDueJobs(deps, NOW);
    const quarantined = (await jobs.get(TENANT, poison.jobId)) as StoredJob;

    const fixed = await updateJob(
      deps,
      TENANT,
      poison.jobId,
      parseUpdateJob(every(30, NOW + 10_000), NOW),
      definitionVersionOf(quarantined),
      NOW,
    );

    expect(fixed.quarantine).toBeUndefined();
    expect(fixed.dueShard).toBeDefined();
    expect(runsOf(poison.jobId).map((run) => run.scheduledFor)).toEqual([NOW + 10_000, NOW + 40_000, NOW + 70_000]);
  });

  it('leaves quarantine by pause and resume, and is judged again (quarantined again while it still fails)', async () => {
    const { deps, jobs } = setup();
    const poison = poisonJob('due#01');
    jobs.items.set(`${TENANT}/${poison.jobId}`, poison);
    await scanDueJobs(deps, NOW);

    await pauseJob(deps, TENANT, poison.jobId, NOW + 1_000);
    const paused = await jobs.get(TENANT, poison.jobId);
    expect(paused?.quarantine).toBeDefined(); // still visible while paused
    const resumed = await resumeJob(deps, TENANT, poison.jobId, NOW + 2_000);

    // Back at the slot it stopped at, due at once: resume materializes it, and it still cannot be planned.
    expect(resumed).toMatchObject({ status: 'ACTIVE', nextFireAt: NOW, quarantine: { at: NOW + 2_000 } });
    expect(resumed.dueShard).toBeUndefined();
  });
});

describe('a job that fails for a reason not its own', () => {
  it('fails only itself for this pass, is not quarantined, and is materialized by the next pass', async () => {
    const { deps, runs, create, runsOf } = setup();
    const healthy = await healthyJobs(create);
    const unlucky = healthy[3] as StoredJob;
    const createIfAbsent = runs.createIfAbsent.bind(runs);
    let failing = true;
    runs.createIfAbsent = async (run, options) => {
      if (failing && run.jobId === unlucky.jobId) throw throttled();
      return createIfAbsent(run, options);
    };

    const first = await scanDueJobs(deps, NOW + 60_000);

    expect(first.failed).toEqual([
      { tenantId: TENANT, jobId: unlucky.jobId, reason: expect.stringContaining('ProvisionedThroughputExceeded') },
    ]);
    expect(first.quarantined).toEqual([]);
    for (const job of healthy.filter((job) => job !== unlucky)) expect(runsOf(job.jobId)).toHaveLength(1);
    expect(await deps.jobs.get(TENANT, unlucky.jobId)).toMatchObject({
      nextFireAt: unlucky.nextFireAt,
      dueShard: unlucky.dueShard,
    });

    failing = false;
    await scanDueJobs(deps, NOW + 61_000);
    expect(runsOf(unlucky.jobId).map((run) => run.scheduledFor)).toEqual([unlucky.nextFireAt]);
    expect((await deps.jobs.get(TENANT, unlucky.jobId))?.quarantine).toBeUndefined();
  });

  it('is quarantined when the store refuses its advance as invalid (its own data)', async () => {
    const { deps, jobs, create } = setup();
    const healthy = await healthyJobs(create);
    const refused = healthy[5] as StoredJob;
    const advance = jobs.advance.bind(jobs);
    jobs.advance = async (job, change) => {
      if (job.jobId === refused.jobId) {
        throw Object.assign(new Error('Item size has exceeded the maximum allowed size'), {
          name: 'ValidationException',
        });
      }
      return advance(job, change);
    };

    const result = await scanDueJobs(deps, NOW + 60_000);

    expect(result.quarantined.map((job) => job.jobId)).toEqual([refused.jobId]);
    expect(result.jobsAdvanced).toBe(healthy.length - 1);
    expect((await jobs.get(TENANT, refused.jobId))?.quarantine?.reason).toContain('ValidationException');
  });
});

describe('a shard that fails', () => {
  it('carries its error in its own pass while every other shard finishes', async () => {
    const { deps, jobs, create, runsOf } = setup();
    const healthy = await healthyJobs(create);
    const broken = healthy[0]?.dueShard as string;
    const findDue = jobs.findDue.bind(jobs);
    jobs.findDue = async (shard, until, limit) => {
      if (shard === broken) throw throttled();
      return findDue(shard, until, limit);
    };

    const result = await scanDueJobs(deps, NOW + 60_000);

    expect(result.perShard.filter((pass) => pass.error).map((pass) => pass.shard)).toEqual([broken]);
    expect(result.perShard.find((pass) => pass.shard === broken)?.error).toContain(
      'ProvisionedThroughputExceededException',
    );
    expect(result.perShard).toHaveLength(4);
    for (const job of healthy) expect(runsOf(job.jobId)).toHaveLength(job.dueShard === broken ? 0 : 1);
    expect(healthy.some((job) => job.dueShard !== broken)).toBe(true);
  });

  it('that hangs is reported as cut short once the budget is spent, and the pass still ends', async () => {
    const { deps, jobs, create, runsOf } = setup();
    const healthy = await healthyJobs(create);
    const hung = healthy[0]?.dueShard as string;
    const findDue = jobs.findDue.bind(jobs);
    jobs.findDue = (shard, until, limit) =>
      shard === hung ? new Promise<never>(() => undefined) : findDue(shard, until, limit);
    const started = Date.now();

    const result = await scanDueJobs(deps, NOW + 60_000, () => Date.now() - started, 200);

    expect(result.perShard.filter((pass) => pass.error).map((pass) => pass.shard)).toEqual([hung]);
    expect(result.perShard.find((pass) => pass.shard === hung)?.error).toContain('PassCutShortError');
    for (const job of healthy) expect(runsOf(job.jobId)).toHaveLength(job.dueShard === hung ? 0 : 1);
  });

  it('in the sweep, is reported in failedShards while the other shards are swept', async () => {
    const { runs, dispatcher } = setup();
    const findSweepable = runs.findSweepable.bind(runs);
    runs.findSweepable = async (shard, until, limit) => {
      if (shard === 'due#02') throw throttled();
      return findSweepable(shard, until, limit);
    };

    const result = await sweepRuns({ runs, dispatcher, config: { shardCount: 4 } }, NOW);

    expect(result).toEqual({
      found: 0,
      resent: 0,
      failedShards: [{ shard: 'due#02', error: expect.stringContaining('ProvisionedThroughputExceeded') }],
    });
  });
});
