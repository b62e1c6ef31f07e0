/**
 * The gate's decisions (core/flow-control/flow-gate.ts): a run over the key's rate waits for its
 * own instant under one delay and keeps it when it comes back; a run finding every slot held
 * joins the line and waits until the earliest lease end; a slot given back goes to the first in
 * line (a `high` run first) with its message to send; a dead holder's slot is free at its lease
 * end; the key's limits are the written ones, the run's own only when none were written; the
 * counts GET /v1/flow-control/{key} shows.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decideGate,
  decideRelease,
  flowKeyCounts,
  type GateDecision,
  type GateRun,
  IN_PROCESS_WAIT_MS,
  START_JITTER_MS,
  WAIT_LEAD_MS,
} from '#core/flow-control/flow-gate';
import type { FlowKeyState } from '#core/flow-control/ports';
import type { Priority } from '#core/priority';

const T0 = 1_800_000_000_000;
const SPAN = 40_000;

function runOf(n: number, readyAt = T0, lane: Priority = 'normal'): GateRun {
  const runId = `job${n}_${readyAt}_1`;
  return {
    runId,
    lane,
    readyAt,
    leaseSpanMs: SPAN,
    message: { tenantId: 't', jobId: `job${n}`, runId, scheduledFor: readyAt, attempt: 1 },
  };
}

/** Passes runs through the gate one after the other, as the store's conditional writes do. */
function passAll(
  runs: GateRun[],
  settings: { key: string; ratePerSecond?: number; parallelism?: number },
  now: number,
) {
  let state: FlowKeyState | undefined;
  const decisions: GateDecision[] = [];
  for (const run of runs) {
    const { next, result } = decideGate(state, settings, run, now);
    state = next;
    decisions.push(result);
  }
  return { state: state as FlowKeyState, decisions };
}

describe('the gate under a rate', () => {
  it('gives each run its own instant, the near ones in process, the others one delay to their instant', () => {
    const runs = Array.from({ length: 30 }, (_, i) => runOf(i));
    const { state, decisions } = passAll(runs, { key: 'k', ratePerSecond: 10 }, T0);
    const spacing = (1000 + START_JITTER_MS) / 10;
    const instants = decisions.map((d) => d.startAt);
    expect(instants).toEqual(runs.map((_, i) => T0 + i * spacing));
    // A waiting run's message comes back WAIT_LEAD_MS before its instant.
    for (const d of decisions) if (d.kind === 'wait') expect(d.until).toBe((d.startAt as number) - WAIT_LEAD_MS);
    const goes = decisions.filter((d) => d.kind === 'go');
    expect(goes.every((d) => d.kind === 'go' && d.startAt - T0 <= IN_PROCESS_WAIT_MS)).toBe(true);
    expect(goes.length).toBe(Math.floor(IN_PROCESS_WAIT_MS / spacing) + 1);
    // The waiting ones keep their reservation in the key: that is what the GET counts.
    expect(Object.keys(state.reserved)).toHaveLength(30 - goes.length);
    expect(flowKeyCounts(state, T0)).toEqual({ inFlight: 0, waiting: 30 - goes.length });
  });

  it('keeps a waiting run its instant when its message comes back, and counts its wait', () => {
    const runs = Array.from({ length: 40 }, (_, i) => runOf(i));
    const { state, decisions } = passAll(runs, { key: 'k', ratePerSecond: 10 }, T0);
    const last = decisions[39] as Extract<GateDecision, { kind: 'wait' }>;
    expect(last.kind).toBe('wait');
    const instant = last.startAt as number;
    // Back 800 ms before its release (whole-second delays): it goes at its own instant, not a new one.
    const back = decideGate(state, { key: 'k', ratePerSecond: 10 }, runOf(39), last.until - 800);
    expect(back.result).toMatchObject({ kind: 'go', startAt: instant, waitedMs: instant - T0 });
    expect(back.next.nextFreeAt).toBe(state.nextFreeAt);
    expect(back.next.reserved[runs[39]?.runId as string]).toBeUndefined();
    // Back by a busy fleet, up to the lead late: still its own instant.
    const busy = decideGate(state, { key: 'k', ratePerSecond: 10 }, runOf(39), instant - 10);
    expect(busy.result).toMatchObject({ kind: 'go', startAt: instant });
    // Back after its instant: a new instant, at the end of the line (started late, it would crowd the next ones).
    const late = decideGate(state, { key: 'k', ratePerSecond: 10 }, runOf(39), instant + 500);
    expect(late.result.startAt).toBeGreaterThanOrEqual(state.nextFreeAt as number);
  });

  it('never starts more than the rate in any second (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.5, max: 50, noNaN: true }),
        fc.array(fc.integer({ min: 0, max: 5_000 }), { minLength: 1, maxLength: 60 }),
        (rate, offsets) => {
          const runs = offsets.map((offset, i) => runOf(i, T0 + offset));
          const { decisions } = passAll(runs, { key: 'k', ratePerSecond: rate }, T0);
          // Each call may start up to LATE_START_MS after its instant (< START_JITTER_MS).
          const starts = decisions.map((d) => d.startAt as number).sort((a, b) => a - b);
          for (let i = 0; i < starts.length; i++) {
            const inWindow = starts.filter(
              (s) => s >= (starts[i] as number) - START_JITTER_MS && s < (starts[i] as number) + 1000,
            );
            expect(inWindow.length).toBeLessThanOrEqual(Math.max(1, Math.ceil(rate)));
          }
        },
      ),
    );
  });
});

describe('the gate under parallelism', () => {
  it('lets `parallelism` runs go, lines the others up until the earliest lease end', () => {
    const runs = Array.from({ length: 5 }, (_, i) => runOf(i));
    const { state, decisions } = passAll(runs, { key: 'k', parallelism: 2 }, T0);
    expect(decisions.map((d) => d.kind)).toEqual(['go', 'go', 'wait', 'wait', 'wait']);
    expect(decisions[2]).toEqual({ kind: 'wait', until: T0 + SPAN, reason: 'parallelism' });
    expect(flowKeyCounts(state, T0)).toEqual({ inFlight: 2, waiting: 3 });
  });

  it('hands a slot given back to the first in line, a high run first, and counts its wait', () => {
    const runs = [runOf(0), runOf(1), runOf(2, T0), runOf(3, T0 + 10, 'high'), runOf(4, T0 + 20)];
    let { state } = passAll(runs.slice(0, 2), { key: 'k', parallelism: 2 }, T0);
    for (const run of runs.slice(2)) state = decideGate(state, { key: 'k', parallelism: 2 }, run, run.readyAt).next;
    const released = decideRelease(state, runs[0]?.runId as string, T0 + 1_000);
    expect(released.result.wake).toEqual(runs[3]?.message);
    const after = released.next as FlowKeyState;
    expect(flowKeyCounts(after, T0 + 1_000)).toEqual({ inFlight: 2, waiting: 2 });
    // The woken run finds the slot kept for it, and its wait counted from when it joined the line.
    const woken = decideGate(after, { key: 'k', parallelism: 2 }, runOf(3, T0 + 10, 'high'), T0 + 1_200);
    expect(woken.result).toMatchObject({ kind: 'go', holdsSlot: true, waitedMs: 1_190 });
    // Nobody else could take it meanwhile.
    expect(decideGate(after, { key: 'k', parallelism: 2 }, runOf(9), T0 + 1_100).result.kind).toBe('wait');
  });

  it("frees a dead holder's slot at its lease end", () => {
    const { state } = passAll([runOf(0), runOf(1)], { key: 'k', parallelism: 2 }, T0);
    expect(decideGate(state, { key: 'k', parallelism: 2 }, runOf(2), T0 + SPAN - 1).result.kind).toBe('wait');
    expect(decideGate(state, { key: 'k', parallelism: 2 }, runOf(2), T0 + SPAN).result.kind).toBe('go');
    expect(flowKeyCounts(state, T0 + SPAN)).toEqual({ inFlight: 0, waiting: 0 });
  });

  it('never lets more runs hold slots than the limit (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.oneof(fc.constant('take' as const), fc.constant('release' as const)), { maxLength: 80 }),
        (parallelism, steps) => {
          let state: FlowKeyState | undefined;
          let n = 0;
          const holding: string[] = [];
          for (const step of steps) {
            if (step === 'take') {
              const run = runOf(n++);
              const change = decideGate(state, { key: 'k', parallelism }, run, T0);
              state = change.next;
              if (change.result.kind === 'go') holding.push(run.runId);
            } else if (holding.length > 0) {
              const change = decideRelease(state, holding.shift() as string, T0);
              state = change.next ?? state;
              if (change.result.wake) holding.push(change.result.wake.runId);
            }
            expect(state?.holders.length ?? 0).toBeLessThanOrEqual(parallelism);
          }
        },
      ),
    );
  });
});

describe("the key's limits", () => {
  it('are the ones written for the key, the run’s own only when none were', () => {
    const written: FlowKeyState = { key: 'k', parallelism: 1, holders: [], reserved: {}, waiters: {} };
    const first = decideGate(written, { key: 'k', parallelism: 50 }, runOf(0), T0);
    expect(decideGate(first.next, { key: 'k', parallelism: 50 }, runOf(1), T0).result.kind).toBe('wait');
    const none = decideGate(undefined, { key: 'k', parallelism: 1 }, runOf(0), T0);
    expect(none.next.parallelism).toBe(1);
    expect(decideGate(none.next, { key: 'k', parallelism: 1 }, runOf(1), T0).result.kind).toBe('wait');
  });
});
