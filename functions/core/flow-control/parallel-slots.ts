/**
 * A key's parallelism as slots held by runs, each until its lease ends: a run takes a slot before
 * its call and gives it back with its outcome; a slot whose holder died is free again once the
 * holder's lease has ended (its run is taken over then, and takes a slot again), so a crashed
 * executor never keeps a slot for good. A run that finds every slot held waits until the earliest
 * lease end (or until a holder gives its slot back and wakes it, when the wiring can).
 */

export interface SlotHolder {
  runId: string;
  /** Epoch ms: the holder's lease end; after it the slot is free. */
  until: number;
  /** A slot handed to a waiting run: since when it waited (its waitedMs counts from there). */
  since?: number;
}

export type SlotDecision =
  | { taken: true; holders: SlotHolder[] }
  | { taken: false; retryAt: number; holders: SlotHolder[] };

/** The holders still holding at `now` (leases not ended). */
export function liveHolders(holders: readonly SlotHolder[], now: number): SlotHolder[] {
  return holders.filter((holder) => holder.until > now);
}

/**
 * Takes a slot of a key limited to `parallelism` for `runId` until `until`. A run that holds one
 * already extends it (a retry of the decision, a redelivered message); otherwise it takes a free one
 * or waits until the earliest live lease ends. The holders returned are what the key stores.
 */
export function takeSlot(
  holders: readonly SlotHolder[],
  parallelism: number,
  runId: string,
  now: number,
  until: number,
): SlotDecision {
  const live = liveHolders(holders, now);
  const own = live.find((holder) => holder.runId === runId);
  if (own) return { taken: true, holders: live.map((h) => (h.runId === runId ? { runId, until } : h)) };
  if (live.length < parallelism) return { taken: true, holders: [...live, { runId, until }] };
  return { taken: false, retryAt: Math.min(...live.map((holder) => holder.until)), holders: live };
}

/** Gives `runId`'s slot back (its call ended); the others keep theirs. */
export function releaseSlot(holders: readonly SlotHolder[], runId: string, now: number): SlotHolder[] {
  return liveHolders(holders, now).filter((holder) => holder.runId !== runId);
}
