/**
 * A key's rate as reservations in time, not refusals: each run of the key takes the next free
 * start instant (`startAt`), spaced `1 / ratePerSecond` apart, and waits for it under a single
 * delay — one message re-delayed once, never polled — so waiting costs one SQS delay, not a loop of
 * retries. The key keeps one instant, `nextFreeAt` (the GCRA's theoretical arrival time with a
 * burst of one), so a reservation is one conditional update of one item, and concurrent runs never
 * take the same instant.
 */

export interface RateReservation {
  /** When this run may start its call. */
  startAt: number;
  /** The key's next free instant after this reservation: what the key stores. */
  nextFreeAt: number;
  /** How long the run waits for its instant (0 when it may start now). */
  waitMs: number;
}

/** Milliseconds between two starts of a key limited to `ratePerSecond`. */
export function spacingMs(ratePerSecond: number): number {
  return 1000 / ratePerSecond;
}

/**
 * The reservation of a run ready at `readyAt`, for a key whose next free instant is `nextFreeAt`
 * (undefined: never used). A key idle since its last start gives the run its own `readyAt`.
 */
export function reserveStart(nextFreeAt: number | undefined, ratePerSecond: number, readyAt: number): RateReservation {
  const startAt = Math.max(nextFreeAt ?? readyAt, readyAt);
  return { startAt, nextFreeAt: startAt + spacingMs(ratePerSecond), waitMs: startAt - readyAt };
}
