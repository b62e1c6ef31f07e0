/**
 * The pure parts of flow control per key (issue #22): the field's validation, rate as start
 * reservations (never more starts in a second than the rate allows, every run gets an instant, the
 * issue's 100 runs at 10/s spread over ≥ 9.5 s), and parallelism as slots held until a lease ends
 * (never more holders than the limit, a dead holder's slot back at its lease end).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFlowControl } from '#core/flow-control/flow-control-settings';
import { liveHolders, releaseSlot, type SlotHolder, takeSlot } from '#core/flow-control/parallel-slots';
import { reserveStart, spacingMs } from '#core/flow-control/rate-reservation';

describe('the flowControl field', () => {
  it('takes a key with either limit or both', () => {
    expect(parseFlowControl({ key: 'billing-api', ratePerSecond: 10 })).toEqual({
      ok: true,
      settings: { key: 'billing-api', ratePerSecond: 10 },
    });
    expect(parseFlowControl({ key: 'k', parallelism: 2, ratePerSecond: 0.01 })).toMatchObject({ ok: true });
  });

  it('names every problem: no limit, bounds, an unknown field, a key too long', () => {
    const result = parseFlowControl({ key: 'k'.repeat(129), ratePerSecond: 0, parallelism: 1.5, extra: 1 });
    expect(result.ok).toBe(false);
    const fields = result.ok ? [] : result.problems.map((problem) => problem.field).sort();
    expect(fields).toEqual([
      'flowControl.extra',
      'flowControl.key',
      'flowControl.parallelism',
      'flowControl.ratePerSecond',
    ]);
    expect(parseFlowControl({ key: 'k' })).toEqual({
      ok: false,
      problems: [{ field: 'flowControl', reason: 'needs at least one limit: ratePerSecond or parallelism' }],
    });
    expect(parseFlowControl('k').ok).toBe(false);
  });

  it('never throws and accepts only what is in bounds (property)', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const result = parseFlowControl(value);
        if (!result.ok) return;
        const { key, ratePerSecond, parallelism } = result.settings;
        expect([...key].length).toBeGreaterThanOrEqual(1);
        expect(ratePerSecond !== undefined || parallelism !== undefined).toBe(true);
      }),
    );
  });
});

/** The start instants of `count` runs all ready at `readyAt`, reserved one after the other. */
function reserveAll(count: number, rate: number, readyAt: number, nextFreeAt?: number): number[] {
  const starts: number[] = [];
  let next = nextFreeAt;
  for (let index = 0; index < count; index++) {
    const reservation = reserveStart(next, rate, readyAt);
    starts.push(reservation.startAt);
    next = reservation.nextFreeAt;
  }
  return starts;
}

describe('rate as start reservations', () => {
  it("spreads the issue's 100 runs of one second at 10/s over at least 9.5 s, 10 a second at most", () => {
    const starts = reserveAll(100, 10, 0);
    expect(Math.max(...starts) - Math.min(...starts)).toBeGreaterThanOrEqual(9_500);
    for (let second = 0; second < 11; second++) {
      expect(starts.filter((at) => at >= second * 1000 && at < (second + 1) * 1000).length).toBeLessThanOrEqual(10);
    }
  });

  it('never starts more than the rate allows in any window of one second, and never before a run is ready (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 1000, noNaN: true }),
        fc.array(fc.integer({ min: 0, max: 10_000 }), { minLength: 1, maxLength: 200 }),
        (rate, readyTimes) => {
          let next: number | undefined;
          const starts: number[] = [];
          for (const readyAt of [...readyTimes].sort((a, b) => a - b)) {
            const reservation = reserveStart(next, rate, readyAt);
            expect(reservation.startAt).toBeGreaterThanOrEqual(readyAt);
            expect(reservation.waitMs).toBe(reservation.startAt - readyAt);
            starts.push(reservation.startAt);
            next = reservation.nextFreeAt;
          }
          // Consecutive starts are at least one spacing apart: so any window of 1 s holds at most
          // floor(rate) + 1 of them, the rate's own count rounded up.
          for (let index = 1; index < starts.length; index++)
            expect((starts[index] as number) - (starts[index - 1] as number)).toBeGreaterThanOrEqual(
              spacingMs(rate) - 1e-6,
            );
        },
      ),
    );
  });

  it('gives a run of an idle key its own instant', () => {
    expect(reserveStart(1_000, 10, 5_000)).toEqual({ startAt: 5_000, nextFreeAt: 5_100, waitMs: 0 });
  });
});

describe('parallelism as slots held until a lease ends', () => {
  it('lets two of three in, the third waits until the earliest lease end, then takes the freed slot', () => {
    let holders: SlotHolder[] = [];
    const a = takeSlot(holders, 2, 'a', 0, 5_000);
    holders = a.holders;
    const b = takeSlot(holders, 2, 'b', 0, 3_000);
    holders = b.holders;
    const c = takeSlot(holders, 2, 'c', 100, 4_000);
    expect([a.taken, b.taken, c.taken]).toEqual([true, true, false]);
    expect(c.taken ? undefined : c.retryAt).toBe(3_000);
    holders = releaseSlot(holders, 'b', 1_000);
    expect(takeSlot(holders, 2, 'c', 1_000, 6_000).taken).toBe(true);
  });

  it("gives a dead holder's slot back at its lease end, and lets a holder extend its own", () => {
    const holders: SlotHolder[] = [{ runId: 'crashed', until: 2_000 }];
    expect(takeSlot(holders, 1, 'next', 1_999, 9_000).taken).toBe(false);
    expect(takeSlot(holders, 1, 'next', 2_000, 9_000)).toEqual({
      taken: true,
      holders: [{ runId: 'next', until: 9_000 }],
    });
    expect(takeSlot(holders, 1, 'crashed', 1_000, 4_000)).toEqual({
      taken: true,
      holders: [{ runId: 'crashed', until: 4_000 }],
    });
  });

  it('never has more live holders than the limit, whatever the order of takes and releases (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.array(
          fc.record({
            take: fc.boolean(),
            run: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g'),
            dt: fc.integer({ min: 0, max: 500 }),
            lease: fc.integer({ min: 1, max: 2_000 }),
          }),
          { maxLength: 60 },
        ),
        (parallelism, steps) => {
          let holders: SlotHolder[] = [];
          let now = 0;
          for (const step of steps) {
            now += step.dt;
            if (step.take) {
              const decision = takeSlot(holders, parallelism, step.run, now, now + step.lease);
              if (!decision.taken) expect(decision.retryAt).toBeGreaterThan(now);
              holders = decision.holders;
            } else holders = releaseSlot(holders, step.run, now);
            const live = liveHolders(holders, now);
            expect(live.length).toBeLessThanOrEqual(parallelism);
            expect(new Set(live.map((holder) => holder.runId)).size).toBe(live.length);
          }
        },
      ),
    );
  });
});
