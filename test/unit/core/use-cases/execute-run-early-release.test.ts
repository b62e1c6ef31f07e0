/**
 * Runs released seconds before their due time (core/release-spread.ts) are claimed early and wait
 * for their second under the lease: a pause or cancel made during that wait must still stop the call.
 */
import { describe, expect, it } from 'vitest';
import type { Job } from '#core/model';
import { ReleaseSpread } from '#core/release-spread';
import { fixedSigningKeys, newSigningSecret } from '#core/signing';
import { executeRun, RECHECK_AFTER_WAIT_MS, RECHECK_BEFORE_CALL_MS, RECHECK_SPREAD } from '#core/use-cases/execute-run';
import { newRun } from '#core/use-cases/new-run';
import { FakeClock, ScriptedInvoker } from '../../../support/fakes/fakes.ts';
import { InMemoryJobRepository } from '../../../support/fakes/in-memory-jobs.ts';
import { InMemoryRunRepository } from '../../../support/fakes/in-memory-runs.ts';
import { jobFixture } from '../../../support/job-fixture.ts';

const DUE = Date.parse('2026-06-01T12:00:00Z');

/** A clock whose sleep lets something happen meanwhile (a pause, a cancel), then wakes at the due time. */
class ClockWithWaitEvent extends FakeClock {
  duringWait: (() => void) | undefined;
  override async sleepUntil(epochMs: number): Promise<void> {
    this.duringWait?.();
    this.duringWait = undefined;
    await super.sleepUntil(epochMs);
  }
}

async function setup(receivedEarlyMs: number) {
  const job: Job = jobFixture(DUE, { target: { url: 'https://example.com/hook', method: 'POST', headers: {} } });
  const jobs = new InMemoryJobRepository();
  const runs = new InMemoryRunRepository();
  const clock = new ClockWithWaitEvent(DUE - receivedEarlyMs);
  const invoker = new ScriptedInvoker(clock, () => ({
    kind: 'response',
    status: 200,
    bodyExcerpt: 'ok',
    durationMs: 3,
  }));
  await jobs.create(job);
  const run = newRun(job, DUE, 1, DUE - 60_000, 7);
  await runs.createIfAbsent(run);
  let reads = 0;
  const countingJobs = Object.assign(Object.create(jobs), {
    get: (tenantId: string, jobId: string) => {
      reads++;
      return jobs.get(tenantId, jobId);
    },
  }) as InMemoryJobRepository;
  const deps = {
    jobs: countingJobs,
    runs,
    invoker,
    signingKeys: fixedSigningKeys([newSigningSecret()]),
    clock,
    random: () => 0.5,
    config: { leaseMarginMs: 30_000, owner: 'exec-1' },
  };
  const message = { tenantId: 't', jobId: 'J1', scheduledFor: DUE, attempt: 1, runId: run.runId };
  const setStatus = (status: Job['status']) => {
    (jobs.items.get('t/J1') as Job).status = status;
  };
  return { deps, message, runs, invoker, clock, setStatus, reads: () => reads };
}

describe('a run released seconds early', () => {
  it('is claimed at once and called at its due millisecond, under a lease that covers the wait', async () => {
    const { deps, message, runs, invoker } = await setup(6_000);
    const result = await executeRun(deps, message);
    expect(result.kind).toBe('called');
    expect(invoker.requests.map((r) => r.at)).toEqual([DUE]);
    expect(await runs.get(message)).toMatchObject({ status: 'SUCCEEDED', startedAt: DUE });
  });

  it('is skipped, without a call, when its job is paused during the wait', async () => {
    const { deps, message, runs, invoker, clock, setStatus } = await setup(6_000);
    clock.duringWait = () => setStatus('PAUSED');
    expect((await executeRun(deps, message)).kind).toBe('skipped');
    expect(invoker.requests).toHaveLength(0);
    expect(await runs.get(message)).toMatchObject({ status: 'SKIPPED', errorType: 'paused' });
  });

  it('is cancelled, without a call, when its job is cancelled during the wait', async () => {
    const { deps, message, runs, invoker, clock, setStatus } = await setup(3_000);
    clock.duringWait = () => setStatus('CANCELLED');
    expect((await executeRun(deps, message)).kind).toBe('cancelled');
    expect(invoker.requests).toHaveLength(0);
    expect(await runs.get(message)).toMatchObject({ status: 'CANCELLED', errorType: 'cancelled' });
  });

  it('reads the job once when it waits a second or less, as every run released in the second before does', async () => {
    const { deps, message, invoker, reads } = await setup(RECHECK_AFTER_WAIT_MS - 100);
    expect((await executeRun(deps, message)).kind).toBe('called');
    expect(invoker.requests).toHaveLength(1);
    expect(reads()).toBe(1);
  });

  it('reads the job a second time only after a longer wait, shortly before the call and not on its path', async () => {
    const { deps, message, reads, clock, invoker } = await setup(RECHECK_AFTER_WAIT_MS + 500);
    expect((await executeRun(deps, message)).kind).toBe('called');
    expect(reads()).toBe(2);
    expect(clock.sleeps).toEqual([DUE - RECHECK_BEFORE_CALL_MS, DUE]);
    expect(invoker.requests.map((r) => r.at)).toEqual([DUE]);
  });

  it('reads again a second earlier for every thousand runs of the process waiting for the same second, up to 5 s', async () => {
    const { deps, message, clock } = await setup(8_000);
    const recheckSpread = new ReleaseSpread(RECHECK_SPREAD);
    // 2,500 runs of this process already read for this second: this one is the 2,501st.
    for (let i = 0; i < 2_500; i++) recheckSpread.leadMs(DUE, DUE - 8_000);
    expect((await executeRun({ ...deps, recheckSpread }, message)).kind).toBe('called');
    expect(clock.sleeps).toEqual([DUE - 2_500, DUE]);
    // 5,000 more: never earlier than 5 s before the call.
    for (let i = 0; i < 5_000; i++) recheckSpread.leadMs(DUE, DUE - 8_000);
    expect(recheckSpread.leadMs(DUE, DUE - 8_000)).toBe(5_000);
  });

  it('reads half a second before when it is among the first thousand, as without a spread', async () => {
    const { deps, message, clock, reads } = await setup(RECHECK_AFTER_WAIT_MS + 500);
    expect((await executeRun({ ...deps, recheckSpread: new ReleaseSpread(RECHECK_SPREAD) }, message)).kind).toBe(
      'called',
    );
    expect(reads()).toBe(2);
    expect(clock.sleeps).toEqual([DUE - RECHECK_BEFORE_CALL_MS, DUE]);
  });
});
