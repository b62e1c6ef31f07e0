/**
 * When a run's message is released, relative to its due time. Released early, a run is claimed,
 * its job read and its secrets opened before the due second, and only the call happens at it
 * (the executor waits out the rest on a timer, under a lease that covers the wait): precision then
 * no longer depends on how fast the executors can claim.
 *
 * A burst is released over the seconds before it is due, at the rate the executors can make runs
 * ready (`readyPerSecond`): the first `readyPerSecond` runs due in a second are released
 * `baseLeadMs` early, the next as many a second earlier, and so on up to `maxLeadMs`. Released all
 * at once, a large burst would be claimed in the order it happened to reach the executors, and its
 * tail after the due second. Counted per dispatcher instance (one per process): the scanner's
 * pages and passes, and the API's creates, each see the bursts they send.
 */

export interface ReleaseSpreadOptions {
  /** How early every future run is released (besides the up-to-a-second of whole-second delays). */
  baseLeadMs: number;
  /** How many runs the executor fleet makes ready per second before they are due. */
  readyPerSecond: number;
  /** No run is released earlier than this before it is due. */
  maxLeadMs: number;
}

/** The deployed default: released in the second before, as whole-second SQS delays always did. */
export const NO_SPREAD: ReleaseSpreadOptions = {
  baseLeadMs: 0,
  readyPerSecond: Number.POSITIVE_INFINITY,
  maxLeadMs: 0,
};

/** Seconds already past are forgotten once they are this old. */
const FORGET_AFTER_MS = 60_000;

export class ReleaseSpread {
  /** Due second → runs released for it so far. */
  readonly #released = new Map<number, number>();
  #oldest = Number.POSITIVE_INFINITY;

  constructor(private readonly options: ReleaseSpreadOptions) {}

  /** How long before `releaseAt` to release one more run, sent at `now`; counts it. */
  leadMs(releaseAt: number, now: number): number {
    // A run due now is released now: there is nothing to spread.
    if (releaseAt <= now) return 0;
    const second = Math.floor(releaseAt / 1000);
    const before = this.#released.get(second) ?? 0;
    this.#released.set(second, before + 1);
    this.#oldest = Math.min(this.#oldest, second);
    this.#forget(now);
    const { baseLeadMs, readyPerSecond, maxLeadMs } = this.options;
    const lead = baseLeadMs + Math.floor(before / readyPerSecond) * 1000;
    return Math.max(0, Math.min(lead, maxLeadMs, releaseAt - now));
  }

  /** How many due seconds are remembered (bounded: the past is forgotten). */
  get size(): number {
    return this.#released.size;
  }

  #forget(now: number): void {
    const horizon = Math.floor((now - FORGET_AFTER_MS) / 1000);
    if (this.#oldest >= horizon) return;
    for (const second of this.#released.keys()) if (second < horizon) this.#released.delete(second);
    this.#oldest = Math.min(...this.#released.keys(), Number.POSITIVE_INFINITY);
  }
}
