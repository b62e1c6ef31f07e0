import { describe, expect, it } from 'vitest';
import { gcraDecide } from '#core/tenants/token-bucket';

const limits = { perSecond: 2, burst: 3 };

function run(times: number[], tat0?: number) {
  let tat = tat0;
  return times.map((now) => {
    const decision = gcraDecide(tat, limits, now);
    if (decision.allowed) tat = decision.tat;
    return decision.allowed;
  });
}

describe('the create bucket (GCRA)', () => {
  it('lets a burst of `burst` requests through at once when idle, then refuses', () => {
    expect(run([1_000, 1_000, 1_000, 1_000])).toEqual([true, true, true, false]);
  });

  it('refills at the rate: one more request every 1/perSecond', () => {
    expect(run([0, 0, 0, 0, 500, 500, 1_000])).toEqual([true, true, true, false, true, false, true]);
  });

  it('never saves up more than the burst, however long it was idle', () => {
    expect(run([0, 3_600_000, 3_600_000, 3_600_000, 3_600_000])).toEqual([true, true, true, true, false]);
  });

  it('tells how long until the next request is allowed, in whole seconds', () => {
    expect(gcraDecide(10_000, { perSecond: 1, burst: 1 }, 0)).toEqual({ allowed: false, retryAfterSeconds: 10 });
    expect(gcraDecide(1_500, { perSecond: 2, burst: 1 }, 1_000)).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });
});
