import { describe, expect, it } from 'vitest';
import { gcraDecide, tokensFor } from '#core/tenants/token-bucket';

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

describe('taking several tokens at once (a resume catch-up)', () => {
  const bucket = { perSecond: 1, burst: 5 };

  it('takes all of them or none', () => {
    const first = gcraDecide(undefined, bucket, 0, 3);
    expect(first).toEqual({ allowed: true, tat: 3_000 });
    // Two left: a request for three is refused whole, one for two passes.
    expect(gcraDecide(3_000, bucket, 0, 3)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(gcraDecide(3_000, bucket, 0, 2)).toEqual({ allowed: true, tat: 5_000 });
    expect(gcraDecide(5_000, bucket, 0, 1).allowed).toBe(false);
  });

  it('counts a request for more than the burst as the whole bucket: it waits for a full bucket and empties it', () => {
    expect(tokensFor(100, bucket)).toBe(5);
    expect(tokensFor(0, bucket)).toBe(1);
    expect(gcraDecide(undefined, bucket, 0, 100)).toEqual({ allowed: true, tat: 5_000 });
    expect(gcraDecide(1_000, bucket, 0, 100)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(gcraDecide(5_000, bucket, 0, 100)).toEqual({ allowed: false, retryAfterSeconds: 5 });
  });

  it('is the same bucket as one token at a time', () => {
    let one: number | undefined;
    for (let i = 0; i < 4; i++) {
      const step = gcraDecide(one, bucket, 0);
      if (step.allowed) one = step.tat;
    }
    const four = gcraDecide(undefined, bucket, 0, 4);
    expect(four.allowed && four.tat).toBe(one);
  });
});
