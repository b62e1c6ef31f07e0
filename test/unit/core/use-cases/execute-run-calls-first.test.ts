/**
 * Calls first (adapters/http/calls-going-out.ts): the executor tells its invoker when a built call
 * will go out, and writes a call's outcome only once the calls going out with it are sent.
 */
import { describe, expect, it } from 'vitest';
import type { HttpRequest } from '#core/ports';
import { executeRun } from '#core/use-cases/execute-run';
import { executorWithRun } from '../../../support/executor-with-run.ts';
import { FakeClock, ScriptedInvoker } from '../../../support/fakes/fakes.ts';
import { jobFixture } from '../../../support/job-fixture.ts';

const DUE = Date.parse('2026-06-01T12:00:00Z');

/** An invoker whose burst is still going out until the test says it is sent. */
class BurstInvoker extends ScriptedInvoker {
  readonly planned: Array<{ request: HttpRequest; at: number; invokedBefore: boolean }> = [];
  burstSent!: () => void;
  private readonly burst = new Promise<void>((resolve) => {
    this.burstSent = resolve;
  });
  waiting = false;
  readonly invoked: HttpRequest[] = [];
  override invoke(request: HttpRequest) {
    this.invoked.push(request);
    return super.invoke(request);
  }
  plan(request: HttpRequest, at: number): void {
    this.planned.push({ request, at, invokedBefore: this.requests.length > 0 });
  }
  readonly maxWaits: number[] = [];
  async untilCallsSent(maxWaitMs: number): Promise<void> {
    this.maxWaits.push(maxWaitMs);
    this.waiting = true;
    await this.burst;
  }
}

async function setup(options: { status?: number; leaseMarginMs?: number } = {}) {
  const job = jobFixture(DUE, { target: { url: 'https://example.com/hook', method: 'POST', headers: {} } });
  const clock = new FakeClock(DUE - 3_000);
  const invoker = new BurstInvoker(clock, () => ({
    kind: 'response',
    status: options.status ?? 200,
    bodyExcerpt: 'ok',
    durationMs: 3,
  }));
  const { deps, message, runs } = await executorWithRun(job, DUE, {
    invoker,
    clock,
    ...(options.leaseMarginMs === undefined ? {} : { leaseMarginMs: options.leaseMarginMs }),
  });
  return { deps, message, runs, invoker, clock };
}

describe('calls first', () => {
  it('plans the built call for its due time before making it', async () => {
    const { deps, message, invoker } = await setup();
    const executed = executeRun(deps, message);
    await settledUntil(() => invoker.waiting);
    invoker.burstSent();
    await executed;
    expect(invoker.planned).toHaveLength(1);
    expect(invoker.planned[0]).toMatchObject({ at: DUE, invokedBefore: false });
    // The very request that goes out: the invoker recognises it when it is made.
    expect(invoker.invoked).toHaveLength(1);
    expect(invoker.planned[0]?.request).toBe(invoker.invoked[0]);
  });

  it("writes the outcome only once the burst's calls are sent, stamped with its own answer's time", async () => {
    const { deps, message, runs, invoker, clock } = await setup();
    const executed = executeRun(deps, message);
    await settledUntil(() => invoker.waiting);
    // Called, answered, and still RUNNING: the other calls are going out.
    expect(invoker.requests).toHaveLength(1);
    expect(await runs.get(message)).toMatchObject({ status: 'RUNNING' });
    clock.current = DUE + 700;
    invoker.burstSent();
    expect((await executed).kind).toBe('called');
    expect(await runs.get(message)).toMatchObject({ status: 'SUCCEEDED', completedAt: DUE });
  });
});

describe('calls first, bounded', () => {
  it('holds an outcome back a second at most, and never more than a quarter of the lease margin', async () => {
    for (const [leaseMarginMs, maxWait] of [
      [30_000, 1_000],
      [2_000, 500],
    ] as const) {
      const { deps, message, invoker } = await setup({ leaseMarginMs });
      const executed = executeRun(deps, message);
      await settledUntil(() => invoker.waiting);
      invoker.burstSent();
      await executed;
      expect(invoker.maxWaits).toEqual([maxWait]);
    }
  });

  it('writes a failure that will be retried at once: its retry is released from the answer', async () => {
    const { deps, message, runs, invoker } = await setup({ status: 503 });
    expect((await executeRun(deps, message)).kind).toBe('called');
    expect(invoker.waiting).toBe(false);
    const failed = await runs.get(message);
    expect(failed).toMatchObject({ status: 'FAILED', completedAt: DUE });
    expect(failed?.nextAttemptAt).toBeGreaterThanOrEqual(DUE);
  });
});

/** Lets the executor's promises run until `ready` holds (it waits on the invoker, not on time). */
async function settledUntil(ready: () => boolean): Promise<void> {
  for (let i = 0; i < 1_000 && !ready(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(ready()).toBe(true);
}
