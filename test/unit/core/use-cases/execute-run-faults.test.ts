/**
 * The executor's faults around the call: an outcome the store refuses or fails to take, and an
 * error before the call. Neither may leave a run RUNNING nor call a target twice.
 */
import { describe, expect, it } from 'vitest';
import { OutcomeRejectedError } from '#core/errors';
import type { Job, Run, RunKey } from '#core/model';
import type { RunOutcome } from '#core/ports';
import { executeRun, FailedBeforeCallError } from '#core/use-cases/execute-run';
import { OUTCOME_WRITE_TRIES, reducedOutcome } from '#core/use-cases/record-outcome';
import { runView } from '#core/views';
import { executorWithRun } from '../../../support/executor-with-run.ts';
import { FakeClock, ScriptedInvoker } from '../../../support/fakes/fakes.ts';
import { InMemoryRunRepository } from '../../../support/fakes/in-memory-runs.ts';
import { jobFixture } from '../../../support/job-fixture.ts';

const DUE = Date.parse('2026-06-01T12:00:00Z');
const job: Job = jobFixture(DUE, { target: { url: 'https://example.com/hook', method: 'POST', headers: {} } });

/** A run store whose `complete` fails as scripted, one entry per call, then behaves. */
class FaultyRuns extends InMemoryRunRepository {
  readonly completions: RunOutcome[] = [];
  constructor(private readonly faults: Array<(outcome: RunOutcome) => Error | undefined>) {
    super();
  }
  override async complete(key: RunKey, owner: string, outcome: RunOutcome): Promise<boolean> {
    this.completions.push(outcome);
    const fault = this.faults.shift()?.(outcome);
    if (fault) throw fault;
    return super.complete(key, owner, outcome);
  }
}

async function setup(runs: InMemoryRunRepository = new InMemoryRunRepository()) {
  const clock = new FakeClock(DUE - 400);
  const invoker = new ScriptedInvoker(clock, () => ({
    kind: 'response',
    status: 500,
    bodyExcerpt: 'x'.repeat(10_000),
    durationMs: 12,
  }));
  const { jobs, deps, message } = await executorWithRun(job, DUE, { invoker, clock, runs });
  return { jobs, runs, clock, invoker, deps, message };
}

describe('an outcome is always recorded', () => {
  it('records a reduced outcome when the store refuses the full one, and makes no second call', async () => {
    const runs = new FaultyRuns([() => new OutcomeRejectedError('Item size has exceeded the maximum allowed size')]);
    const { deps, message, invoker } = await setup(runs);

    const result = await executeRun(deps, message);

    expect(result).toMatchObject({ kind: 'called', outcomeReduced: expect.stringContaining('Item size') });
    expect(invoker.requests).toHaveLength(1);
    const stored = await runs.get(message);
    expect(stored).toMatchObject({
      status: 'FAILED',
      errorType: 'http_5xx',
      httpStatus: 500,
      outcomeReduced: 'the full outcome could not be stored: Item size has exceeded the maximum allowed size',
    });
    expect(stored?.responseExcerpt).toBeUndefined();
    // The API shows why the run's record is short.
    expect(runView(stored as Run)).toMatchObject({ status: 'FAILED', outcomeReduced: stored?.outcomeReduced });
    // The retry decision survives the reduction: the occurrence is not silently given up.
    expect(stored?.nextAttemptAt).toBeGreaterThan(DUE);
    expect(runs.completions).toHaveLength(2);
  });

  it('tries a transient failure again with backoff and records the full outcome', async () => {
    const throttled = () => Object.assign(new Error('Throughput exceeds'), { name: 'ThrottlingException' });
    const runs = new FaultyRuns([throttled, throttled]);
    const { deps, message, clock } = await setup(runs);

    await executeRun(deps, message);

    const stored = await runs.get(message);
    expect(stored).toMatchObject({ status: 'FAILED', responseExcerpt: 'x'.repeat(10_000) });
    expect(stored?.outcomeReduced).toBeUndefined();
    expect(runs.completions).toHaveLength(3);
    // Two backoffs, growing, within the invocation.
    const waits = clock.sleeps.slice(-2);
    expect(waits[1] as number).toBeGreaterThan(waits[0] as number);
  });

  it('keeps trying the reduced form while the lease lasts, through an outage of the table', async () => {
    const down = () => Object.assign(new Error('socket hang up'), { $metadata: {} });
    // Down for about 20 s: longer than the tries of the full form, shorter than the lease.
    const outage = Array.from({ length: OUTCOME_WRITE_TRIES + 10 }, () => down);
    const runs = new FaultyRuns(outage);
    const { deps, message, invoker, clock } = await setup(runs);

    await executeRun(deps, message);

    expect(invoker.requests).toHaveLength(1);
    const stored = await runs.get(message);
    expect(stored).toMatchObject({ status: 'FAILED', outcomeReduced: expect.stringContaining('socket hang up') });
    expect(clock.current).toBeLessThan(DUE + 10_000 + 30_000);
  });

  it('gives up only once the lease has run out, when the table stays down', async () => {
    const down = () => Object.assign(new Error('socket hang up'), { $metadata: {} });
    const runs = new FaultyRuns(Array.from({ length: 1_000 }, () => down));
    const { deps, message, invoker, clock } = await setup(runs);

    await expect(executeRun(deps, message)).rejects.toThrow('socket hang up');

    expect(invoker.requests).toHaveLength(1);
    const leaseEnd = DUE + 10_000 + 30_000;
    expect(clock.current).toBeGreaterThan(leaseEnd - 3_000);
    expect(clock.current).toBeLessThan(leaseEnd);
    expect(runs.completions.at(-1)?.outcomeReduced).toContain('socket hang up');
  });

  it('keeps only storable values in the reduced form', () => {
    const reduced = reducedOutcome(
      {
        status: 'FAILED',
        completedAt: DUE,
        errorType: 'http_5xx',
        httpStatus: 2 ** 60,
        durationMs: Number.NaN,
        error: `\ud800${'e'.repeat(5_000)}`,
        responseExcerpt: 'big',
        nextAttemptAt: DUE + 1_000,
      },
      'r'.repeat(1_000),
    );

    expect(reduced).toEqual({
      status: 'FAILED',
      completedAt: DUE,
      errorType: 'http_5xx',
      error: expect.stringMatching(/^\ufffde+…$/),
      nextAttemptAt: DUE + 1_000,
      outcomeReduced: expect.stringMatching(/^r+…$/),
    });
    expect((reduced.error as string).length).toBeLessThanOrEqual(256);
  });
});

describe('an error before the call', () => {
  it('gives the claim back when the signing keys cannot be read, so the next delivery claims at once', async () => {
    const { deps, message, runs, invoker } = await setup();
    const failing = {
      ...deps,
      signingKeys: {
        keysFor: async () => {
          throw new Error('KMS throttled');
        },
      },
    };

    await expect(executeRun(failing, message)).rejects.toBeInstanceOf(FailedBeforeCallError);

    expect(invoker.requests).toHaveLength(0);
    const run = await runs.get(message);
    expect(run?.status).toBe('QUEUED');
    expect(run?.leaseOwner).toBeUndefined();
    expect((await executeRun(deps, message)).kind).toBe('called');
    expect(invoker.requests).toHaveLength(1);
  });

  it('reports a failed job read as failed before the call, claiming nothing', async () => {
    const { deps, message, runs, jobs } = await setup();
    jobs.get = async () => {
      throw Object.assign(new Error('Rate exceeded'), { name: 'ProvisionedThroughputExceededException' });
    };

    const error = await executeRun(deps, message).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(FailedBeforeCallError);
    expect((error as Error).message).toContain('Rate exceeded');
    expect((await runs.get(message))?.status).toBe('QUEUED');
  });

  it('gives back a claim whose write landed though its answer was lost', async () => {
    const { deps, message, runs, invoker } = await setup();
    const claim = runs.claim.bind(runs);
    runs.claim = async (key, lease) => {
      await claim(key, lease);
      throw Object.assign(new Error('socket timeout'), { name: 'TimeoutError' });
    };

    await expect(executeRun(deps, message)).rejects.toBeInstanceOf(FailedBeforeCallError);

    expect((await runs.get(message))?.status).toBe('QUEUED');
    runs.claim = claim;
    expect((await executeRun(deps, message)).kind).toBe('called');
    expect(invoker.requests).toHaveLength(1);
  });

  it('reports a failed cap check as failed before the call', async () => {
    const { deps, message } = await setup();
    const capped = {
      ...deps,
      slots: {
        slots: { acquire: async () => true, release: async () => undefined },
        capOf: async () => {
          throw new Error('tenants table throttled');
        },
      },
    };

    await expect(executeRun(capped, message)).rejects.toBeInstanceOf(FailedBeforeCallError);
  });

  it('does not give back a claim that is no longer its own', async () => {
    const { message, runs } = await setup();
    await runs.claim(message, { owner: 'other', expiresAt: DUE + 1, now: DUE - 500, takeOverExpired: true });

    expect(await runs.release(message, 'exec-1', DUE + 1)).toBe(false);
    expect(await runs.release(message, 'other', DUE + 2)).toBe(false);
    expect((await runs.get(message))?.status).toBe('RUNNING');
  });
});
