import { describe, expect, it } from 'vitest';
import { CallsGoingOut } from '#adapters/http/calls-going-out';

/** Whether `promise` has settled once everything already queued has run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
  return done;
}

function tracker(options: ConstructorParameters<typeof CallsGoingOut>[0] = {}) {
  let now = 10_000;
  const calls = new CallsGoingOut({ now: () => now, ...options });
  return { calls, at: (ms: number) => (now = ms) };
}

describe('CallsGoingOut', () => {
  it('resolves at once when nothing is going out', async () => {
    const { calls } = tracker();
    expect(await settled(calls.sent(1_000))).toBe(true);
  });

  it('waits for a call just started until its request is written', async () => {
    const { calls } = tracker();
    const written = calls.start({});
    const waiting = calls.sent(1_000);
    expect(await settled(waiting)).toBe(false);
    written();
    expect(await settled(waiting)).toBe(true);
    expect(calls.size).toBe(0);
  });

  it('does not wait for a call started more than freshMs ago and still not written', async () => {
    const { calls, at } = tracker({ freshMs: 1_000 });
    calls.start({});
    at(11_001);
    expect(await settled(calls.sent(1_000))).toBe(true);
  });

  it('waits for a call planned for now until it is made and written, not for one planned later', async () => {
    const { calls } = tracker({ lookaheadMs: 100 });
    const soon = {};
    calls.plan(soon, 10_050);
    calls.plan({}, 10_500);
    const waiting = calls.sent(1_000);
    expect(await settled(waiting)).toBe(false);
    const written = calls.start(soon);
    expect(await settled(waiting)).toBe(false);
    written();
    expect(await settled(waiting)).toBe(true);
  });

  it('does not wait for calls that start after it began waiting', async () => {
    const { calls } = tracker();
    const first = calls.start({});
    const waiting = calls.sent(1_000);
    calls.start({});
    first();
    expect(await settled(waiting)).toBe(true);
  });

  it('forgets a planned call that was never made, graceMs after its time', async () => {
    const { calls, at } = tracker({ graceMs: 1_000 });
    calls.plan({}, 10_000);
    expect(calls.size).toBe(1);
    at(11_001);
    expect(await settled(calls.sent(1_000))).toBe(true);
    expect(calls.size).toBe(0);
  });

  it('keeps a call planned twice once, and says it is written only once', async () => {
    const { calls } = tracker();
    const key = {};
    calls.plan(key, 10_000);
    calls.plan(key, 10_000);
    expect(calls.size).toBe(1);
    const written = calls.start(key);
    written();
    written();
    expect(calls.size).toBe(0);
  });

  it('never waits longer than maxWaitMs', async () => {
    const calls = new CallsGoingOut();
    calls.start({});
    const started = performance.now();
    await calls.sent(30);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });
});
