/**
 * The decisions of the gate every run with `flowControl` passes before its claim (pure: the
 * store applies them with a conditional write, ports.ts). A run first takes one of the key's slots
 * (parallelism), then its start instant (rate), so that only runs holding a slot hold instants:
 *
 * - no slot free: the run joins the key's line and waits. Whoever gives a slot back hands it to
 *   the first in line (a `high` run first, then the longest waiting) and sends its message, so a
 *   slot is idle only for a message's trip; the waiter's own message comes back at the earliest
 *   lease end anyway, in case the giver died (a dead holder's slot is free then too);
 * - an instant more than IN_PROCESS_WAIT_MS away: the run keeps its reservation in the key and its
 *   message is sent again, delayed to WAIT_LEAD_MS before the instant — one delayed message per
 *   waiting run, back early enough that a busy fleet does not miss the instant;
 * - otherwise (or, for a run back with its reservation, within HELD_IN_PROCESS_WAIT_MS) it goes: it
 *   waits out the rest in process (SQS delays are whole seconds, so a shorter wait could not be a
 *   delay anyway) and calls at its instant.
 */
import type { DispatchMessage } from '../model.ts';
import { PRIORITIES, type Priority } from '../priority.ts';
import type { FlowControlSettings } from './flow-control-settings.ts';
import { liveHolders, releaseSlot, takeSlot } from './parallel-slots.ts';
import type { FlowKeyChange, FlowKeyState, SlotWaiter } from './ports.ts';
import { reserveStart } from './rate-reservation.ts';

/** A new run whose instant is at most this far away waits for it in process rather than with a delayed message. */
export const IN_PROCESS_WAIT_MS = 1000;
/**
 * A run waiting for a farther instant has its message delayed to this long before it, so that it
 * is back, claimed and ready while a busy executor fleet still has time to spare: a message back
 * after its instant makes its run take a new one at the end of the line.
 */
export const WAIT_LEAD_MS = 1000;
/**
 * A run back with its reservation waits in process for an instant at most this far away: its
 * lead, the second SQS's whole-second delays may release it early, and some slack.
 */
export const HELD_IN_PROCESS_WAIT_MS = WAIT_LEAD_MS + 1500;
/**
 * How late a call may reach its target after its instant (the claim and the reads between the
 * gate and the call, a busy host, the trip) with the key still never making more than
 * `ratePerSecond` calls in any second: the instants are spaced (1000 + this) / ratePerSecond ms
 * apart, not 1000 / ratePerSecond.
 */
export const START_JITTER_MS = 100;
/**
 * A call not started this long after its reserved instant is not made then (its run takes a new
 * instant): less than START_JITTER_MS, so that the rest covers the trip to the target.
 */
export const LATE_START_MS = 40;
/**
 * A run back later than this after its reserved instant takes a new one: started late, it could
 * crowd the next ones. Less than LATE_START_MS, so that a run back just in time can still start.
 */
export const LATE_RESERVATION_MS = 30;
/** A slot handed to a waiter is kept for it this long: its message is sent right away, and normally takes seconds. */
export const HANDOFF_MS = 60_000;
/** Runs a key keeps track of in each line (reservations, slot waiters): bounds the key's item. */
export const MAX_TRACKED_WAITERS = 500;

export interface GateRun {
  runId: string;
  lane: Priority;
  message: DispatchMessage;
  /** When the run could start were there no key: its due time, or now if later. */
  readyAt: number;
  /** How long a call may hold its slot past its start: the job's timeout plus the lease margin. */
  leaseSpanMs: number;
}

export type GateDecision =
  /**
   * Call at `startAt` (waited for in process); `waitedMs` once the run waited for the key. Under a
   * rate, a call that could not start by `startBy` must not start at all: it would crowd the next instants.
   */
  | { kind: 'go'; startAt: number; holdsSlot: boolean; waitedMs?: number; startBy?: number }
  /**
   * Not now: the run's message must come back at `until`; under a rate, `startAt` is the instant
   * it holds (`until` is WAIT_LEAD_MS before it).
   */
  | { kind: 'wait'; until: number; reason: 'rate' | 'parallelism'; startAt?: number };

/** The key's state as a run finds it: the limits most recently written, or the run's own when none were. */
function effective(state: FlowKeyState | undefined, settings: FlowControlSettings, now: number): FlowKeyState {
  const written = state && (state.ratePerSecond !== undefined || state.parallelism !== undefined);
  const base: FlowKeyState = state ?? { key: settings.key, holders: [], reserved: {}, waiters: {} };
  const limits = written ? state : settings;
  const { ratePerSecond: _r, parallelism: _p, ...rest } = base;
  return {
    ...rest,
    ...(limits.ratePerSecond === undefined ? {} : { ratePerSecond: limits.ratePerSecond }),
    ...(limits.parallelism === undefined ? {} : { parallelism: limits.parallelism }),
    holders: liveHolders(base.holders, now),
  };
}

function without<T>(map: Record<string, T>, id: string): Record<string, T> {
  const { [id]: _gone, ...rest } = map;
  return rest;
}

/** What the key becomes as `run` passes its gate at `now`, and what the run does. */
export function decideGate(
  state: FlowKeyState | undefined,
  settings: FlowControlSettings,
  run: GateRun,
  now: number,
): Required<FlowKeyChange<GateDecision>> {
  const key = effective(state, settings, now);
  const held = key.reserved[run.runId];
  const handed = key.holders.find((holder) => holder.runId === run.runId)?.since;
  const since = held?.since ?? key.waiters[run.runId]?.since ?? handed ?? run.readyAt;
  const reservation = held && held.at >= now - LATE_RESERVATION_MS ? held : undefined;
  const rate = key.ratePerSecond;
  const planned =
    reservation ??
    (rate === undefined
      ? { at: run.readyAt, nextFreeAt: key.nextFreeAt }
      : (() => {
          const reserved = reserveStart(key.nextFreeAt, (rate * 1000) / (1000 + START_JITTER_MS), run.readyAt);
          return { at: reserved.startAt, nextFreeAt: reserved.nextFreeAt };
        })());
  const startAt = Math.max(planned.at, now);

  let holders = key.holders;
  if (key.parallelism !== undefined) {
    const slot = takeSlot(holders, key.parallelism, run.runId, now, startAt + run.leaseSpanMs);
    if (!slot.taken) {
      // A full line keeps its length: a run left out of it is woken only by its own delayed message.
      const joins = key.waiters[run.runId] === undefined && Object.keys(key.waiters).length < MAX_TRACKED_WAITERS;
      const next: FlowKeyState = {
        ...key,
        holders: slot.holders,
        // A reservation whose run lost its slot (the limit was lowered) is given up: it would start late.
        reserved: without(key.reserved, run.runId),
        waiters: joins ? { ...key.waiters, [run.runId]: { since, lane: run.lane, message: run.message } } : key.waiters,
      };
      return { next, result: { kind: 'wait', until: slot.retryAt, reason: 'parallelism' } };
    }
    holders = slot.holders;
  }
  const rest = { ...key, holders, waiters: without(key.waiters, run.runId) };
  const nextFreeAt = 'nextFreeAt' in planned ? planned.nextFreeAt : key.nextFreeAt;
  const withInstant = nextFreeAt === undefined ? rest : { ...rest, nextFreeAt };
  if (startAt - now > (reservation ? HELD_IN_PROCESS_WAIT_MS : IN_PROCESS_WAIT_MS)) {
    const tracked = held !== undefined || Object.keys(key.reserved).length < MAX_TRACKED_WAITERS;
    if (!tracked) {
      // The line is full: this run reserves nothing and looks again when the line's last instant comes.
      return { next: rest, result: { kind: 'wait', until: key.nextFreeAt ?? startAt, reason: 'rate' } };
    }
    const next = { ...withInstant, reserved: { ...key.reserved, [run.runId]: { at: startAt, since } } };
    return { next, result: { kind: 'wait', until: startAt - WAIT_LEAD_MS, reason: 'rate', startAt } };
  }
  const waitedMs = Math.round(startAt - since);
  const next = { ...withInstant, reserved: without(key.reserved, run.runId) };
  return {
    next,
    result: {
      kind: 'go',
      startAt,
      holdsSlot: key.parallelism !== undefined,
      ...(waitedMs > 0 ? { waitedMs } : {}),
      // Counted from the instant reserved, not from now: a run back a little late has less time left.
      ...(rate === undefined ? {} : { startBy: planned.at + LATE_START_MS }),
    },
  };
}

/** The waiter a freed slot goes to: a `high` run first, then the one waiting longest. */
export function nextWaiter(waiters: Record<string, SlotWaiter>): [string, SlotWaiter] | undefined {
  const rank = (lane: Priority) => PRIORITIES.indexOf(lane);
  return Object.entries(waiters).sort(
    ([idA, a], [idB, b]) => rank(a.lane) - rank(b.lane) || a.since - b.since || idA.localeCompare(idB),
  )[0];
}

/**
 * `runId` gives its slot back at `now`; a free slot goes straight to the first waiter, whose
 * message the caller sends (`wake`). No change when the run held no slot and nobody can be woken.
 */
export function decideRelease(
  state: FlowKeyState | undefined,
  runId: string,
  now: number,
): FlowKeyChange<{ wake?: DispatchMessage }> {
  if (!state) return { result: {} };
  const holders = releaseSlot(state.holders, runId, now);
  const freed = holders.length !== state.holders.length;
  const first = nextWaiter(state.waiters);
  const room = state.parallelism === undefined || holders.length < state.parallelism;
  if (first && room) {
    const [waiterId, waiter] = first;
    const next = {
      ...state,
      holders: [...holders, { runId: waiterId, until: now + HANDOFF_MS, since: waiter.since }],
      waiters: without(state.waiters, waiterId),
    };
    return { next, result: { wake: waiter.message } };
  }
  return freed ? { next: { ...state, holders }, result: {} } : { result: {} };
}

/** What `GET /v1/flow-control/{key}` counts: calls holding a slot, and runs waiting for the key. */
export function flowKeyCounts(state: FlowKeyState, now: number): { inFlight: number; waiting: number } {
  const reserved = Object.values(state.reserved).filter((reservation) => reservation.at > now).length;
  return { inFlight: liveHolders(state.holders, now).length, waiting: reserved + Object.keys(state.waiters).length };
}
