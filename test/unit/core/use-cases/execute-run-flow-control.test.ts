/**
 * The executor's gate for flow control (use-cases/flow-gate.ts in execute-run.ts): a run its key
 * cannot take now is 'waiting' — no claim, no call, still QUEUED — until the instant or the slot
 * its key gives it; a run that goes records waitedMs with its claim and calls at its instant; its
 * slot is given back after the call and handed to the next waiter, whose message is sent; a call
 * held up past its instant is not made (its claim is given back, the run waits again).
 */
import { describe, expect, it } from 'vitest';
import { START_JITTER_MS, WAIT_LEAD_MS } from '#core/flow-control/flow-gate';
import type { FlowKeyChange, FlowKeyState, FlowKeyStore } from '#core/flow-control/ports';
import type { Job } from '#core/model';
import { fixedSigningKeys, newSigningSecret } from '#core/signing';
import { executeRun } from '#core/use-cases/execute-run';
import { newRun } from '#core/use-cases/new-run';
import { FakeClock, RecordingDispatcher, ScriptedInvoker } from '../../../support/fakes/fakes.ts';
import { InMemoryJobRepository } from '../../../support/fakes/in-memory-jobs.ts';
import { InMemoryRunRepository } from '../../../support/fakes/in-memory-runs.ts';
import { jobFixture } from '../../../support/job-fixture.ts';

const DUE = Date.parse('2026-06-01T12:00:00Z');

class InMemoryFlowKeys implements FlowKeyStore {
  state: FlowKeyState | undefined;
  async writeLimits() {}
  async read() {
    return this.state;
  }
  async change<T>(_t: string, _k: string, decide: (state: FlowKeyState | undefined) => FlowKeyChange<T>) {
    const { result, next } = decide(this.state);
    if (next) this.state = next;
    return result;
  }
}

async function setup(flowControl: NonNullable<Job['flowControl']>, count: number, callMs = 5) {
  const jobs = new InMemoryJobRepository();
  const runs = new InMemoryRunRepository();
  const clock = new FakeClock(DUE);
  const invoker = new ScriptedInvoker(clock, () => ({
    kind: 'response',
    status: 200,
    bodyExcerpt: 'ok',
    durationMs: callMs,
  }));
  const keys = new InMemoryFlowKeys();
  const dispatcher = new RecordingDispatcher();
  const messages = [];
  for (let i = 0; i < count; i++) {
    const job: Job = {
      ...jobFixture(DUE, { target: { url: 'https://example.com/hook', method: 'POST', headers: {} } }),
      jobId: `J${i}`,
      flowControl,
    };
    await jobs.create(job);
    const run = newRun(job, DUE, 1, DUE - 60_000, 7);
    await runs.createIfAbsent(run);
    messages.push({ tenantId: 't', jobId: job.jobId, scheduledFor: DUE, attempt: 1, runId: run.runId });
  }
  const deps = {
    jobs,
    runs,
    invoker,
    signingKeys: fixedSigningKeys([newSigningSecret()]),
    clock,
    random: () => 0.5,
    config: { leaseMarginMs: 30_000, owner: 'exec-1' },
    flow: { keys, dispatcher },
  };
  return { deps, messages, runs, invoker, keys, dispatcher, clock };
}

describe('the executor under a flow-control key', () => {
  it('leaves a run over the rate QUEUED, unclaimed and uncalled, waiting for its own instant', async () => {
    // One call every 550 ms ((1000 + START_JITTER_MS) / 2): the second instant is waited for in
    // process, the third is farther than IN_PROCESS_WAIT_MS.
    const spacing = (1000 + START_JITTER_MS) / 2;
    const { deps, messages, runs, invoker, clock } = await setup({ key: 'k', ratePerSecond: 2 }, 3);
    // Three runs arriving at their due time together (the clock set back for each).
    expect((await executeRun(deps, messages[0] as never)).kind).toBe('called');
    clock.current = DUE;
    expect((await executeRun(deps, messages[1] as never)).kind).toBe('called');
    expect(invoker.requests.map((request) => request.at)).toEqual([DUE, DUE + spacing]);
    expect(await runs.get(messages[1] as never)).toMatchObject({ status: 'SUCCEEDED', waitedMs: spacing });
    clock.current = DUE;
    expect(await executeRun(deps, messages[2] as never)).toEqual({
      kind: 'waiting',
      until: DUE + 2 * spacing - WAIT_LEAD_MS,
      reason: 'rate',
    });
    expect(await runs.get(messages[2] as never)).toMatchObject({ status: 'QUEUED' });
    expect(invoker.requests).toHaveLength(2);

    // Back early (SQS delays are whole seconds): called at its own instant, all its wait counted.
    clock.current = DUE + 2 * spacing - WAIT_LEAD_MS - 800;
    expect((await executeRun(deps, messages[2] as never)).kind).toBe('called');
    expect(invoker.requests[2]?.at).toBe(DUE + 2 * spacing);
    expect(await runs.get(messages[2] as never)).toMatchObject({ status: 'SUCCEEDED', waitedMs: 2 * spacing });
  });

  it('gives a slot back after the call and sends the first waiter its message', async () => {
    const { deps, messages, runs, keys, dispatcher } = await setup({ key: 'k', parallelism: 1 }, 2);
    // The second run arrives while the first one's call is under way.
    const first = executeRun(deps, messages[0] as never);
    const second = await executeRun(deps, messages[1] as never);
    expect(second).toMatchObject({ kind: 'waiting', reason: 'parallelism' });
    expect(await runs.get(messages[1] as never)).toMatchObject({ status: 'QUEUED' });
    expect((await first).kind).toBe('called');
    expect(dispatcher.sent.map((request) => request.message)).toEqual([messages[1]]);
    expect(keys.state?.holders.map((holder) => holder.runId)).toEqual([messages[1]?.runId]);
    expect((await executeRun(deps, messages[1] as never)).kind).toBe('called');
    expect(keys.state?.holders).toEqual([]);
  });

  it('puts a run taken over after its executor died through the gate: it waits while another holds the slot', async () => {
    const { deps, messages, runs, invoker, clock } = await setup({ key: 'k', parallelism: 1 }, 2);
    // Run 0 was claimed by an executor that died; its lease ran out at DUE + 1 s.
    await runs.claim(messages[0] as never, { owner: 'dead', expiresAt: DUE + 1_000, now: DUE, takeOverExpired: true });
    // Run 1 holds the key's only slot now, its call under way.
    clock.current = DUE + 2_000;
    const holder = executeRun(deps, messages[1] as never);
    const takeover = await executeRun(deps, messages[0] as never);
    expect(takeover).toMatchObject({ kind: 'waiting', reason: 'parallelism' });
    expect((await holder).kind).toBe('called');
    expect(invoker.requests).toHaveLength(1);
    // Once the slot is free, the taken-over run is called (a recovery).
    expect((await executeRun(deps, messages[0] as never)).kind).toBe('called');
    expect(await runs.get(messages[0] as never)).toMatchObject({ status: 'SUCCEEDED', recoveries: 1 });
  });

  it('does not call a run held up past its instant: its claim is given back and it waits again', async () => {
    const { deps, messages, runs, invoker, clock, keys } = await setup({ key: 'k', ratePerSecond: 1 }, 1);
    // Between the gate and the call, the host stalls 100 ms past the run's instant.
    const claim = deps.runs.claim.bind(deps.runs);
    deps.runs.claim = async (key, lease) => {
      clock.current = DUE + 100;
      return claim(key, lease);
    };
    const result = await executeRun(deps, messages[0] as never);
    expect(result).toMatchObject({ kind: 'waiting', reason: 'rate' });
    expect(invoker.requests).toHaveLength(0);
    expect(await runs.get(messages[0] as never)).toMatchObject({ status: 'QUEUED' });
    expect(keys.state?.nextFreeAt).toBe(DUE + 1000 + START_JITTER_MS);
  });
});
