/**
 * The final occurrence of a recurring schedule can finish before the scanner's advance removes
 * the job's nextFireAt (its run is sent first): the job still ends COMPLETED, once, and only after
 * that run ended for good. The DynamoDB version is in test/integration/scanner-isolation.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Run } from '#core/model';
import type { StoredJob } from '#core/ports';
import { completeRun } from '#core/use-cases/complete-run';
import { scanDueJobs } from '#core/use-cases/scan-due-jobs';
import { FakeClock, RecordingNotices } from '../../../support/fakes/fakes.ts';
import { iso, NOW, setup, TENANT } from './manage-fixtures.ts';

/** A schedule of two occurrences, both beyond the horizon at creation (so the scanner materializes them). */
const twoRuns = { schedule: { type: 'interval', everySeconds: 10, startAt: iso(NOW + 120_000), maxRuns: 2 } };

/**
 * Sets up the race: while the scanner is about to advance the job past its final occurrence,
 * `beforeAdvance` gets to act (e.g. the final run finishes and its completion runs).
 */
function racingAdvance(env: ReturnType<typeof setup>, beforeAdvance: (finalRun: Run) => Promise<void>): void {
  const advance = env.jobs.advance.bind(env.jobs);
  env.jobs.advance = async (job, change) => {
    const finalRun = env.runs.all().find((run) => run.jobId === job.jobId && run.finalOccurrence);
    if (change.nextFireAt === undefined && finalRun) await beforeAdvance(finalRun);
    return advance(job, change);
  };
}

function completionDeps(env: ReturnType<typeof setup>) {
  const _clock = new FakeClock(NOW);
  return {
    ...env.deps,
    notices: new RecordingNotices(),
  };
}

/** The run ends as `status` (as the executor would write it), and the completion handler sees it. */
async function finish(env: ReturnType<typeof setup>, run: Run, over: Partial<Run> = {}): Promise<string> {
  const ended = { ...run, status: 'SUCCEEDED' as const, completedAt: NOW + 125_000, ...over };
  env.runs.items.set(`${run.tenantId}/${run.jobId}/${run.scheduledFor}/${run.attempt}`, ended);
  return completeRun(completionDeps(env), ended as Parameters<typeof completeRun>[1], NOW + 125_000);
}

describe('the final occurrence finishing before the advance', () => {
  it('still completes the job when reading the final run is throttled once (tried again in place)', async () => {
    const env = setup();
    const job = await env.create(twoRuns);
    racingAdvance(env, async (finalRun) => {
      await finish(env, finalRun);
    });
    const get = env.runs.get.bind(env.runs);
    let throttled = 0;
    env.runs.get = async (key) => {
      if (throttled++ === 0) throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
      return get(key);
    };

    const result = await scanDueJobs(env.deps, NOW + 60_000);

    expect(throttled).toBeGreaterThan(1);
    expect(result.failed).toEqual([]);
    expect((await env.jobs.get(TENANT, job.jobId))?.status).toBe('COMPLETED');
  });

  it('still completes the job: the advance finds its final run ended', async () => {
    const env = setup();
    const job = await env.create(twoRuns);
    const seen: string[] = [];
    racingAdvance(env, async (finalRun) => {
      seen.push(await finish(env, finalRun));
    });

    await scanDueJobs(env.deps, NOW + 60_000);

    // The completion came too early to end the job: the job still had a nextFireAt then.
    expect(seen).toEqual(['unchanged']);
    const after = (await env.jobs.get(TENANT, job.jobId)) as StoredJob;
    expect(after.status).toBe('COMPLETED');
    expect(after.nextFireAt).toBeUndefined();
  });

  it('waits for a retry of the final occurrence that has not ended yet', async () => {
    const env = setup();
    const job = await env.create(twoRuns);
    racingAdvance(env, async (finalRun) => {
      // The first attempt failed and its retry was scheduled (and created), still QUEUED.
      await finish(env, finalRun, { status: 'FAILED', nextAttemptAt: NOW + 130_000 });
    });

    await scanDueJobs(env.deps, NOW + 60_000);

    expect((await env.jobs.get(TENANT, job.jobId))?.status).toBe('ACTIVE');
    const retry = env.runs.all().find((run) => run.jobId === job.jobId && run.attempt === 2) as Run;
    expect(retry).toMatchObject({ status: 'QUEUED', finalOccurrence: true });
    // The retry's own completion, after the advance, ends the job.
    expect(await finish(env, retry)).toBe('job-completed');
    expect((await env.jobs.get(TENANT, job.jobId))?.status).toBe('COMPLETED');
  });

  it('leaves the job ACTIVE while its final run is still going, for that run to complete it', async () => {
    const env = setup();
    const job = await env.create(twoRuns);

    await scanDueJobs(env.deps, NOW + 60_000);

    expect((await env.jobs.get(TENANT, job.jobId))?.status).toBe('ACTIVE');
    const finalRun = env.runs.all().find((run) => run.jobId === job.jobId && run.finalOccurrence) as Run;
    expect(await finish(env, finalRun)).toBe('job-completed');
  });
});
