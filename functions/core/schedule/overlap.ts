/**
 * Overlap policy: may an occurrence start while another run of the job is still in flight?
 * `forbid` skips the new occurrence (it is not queued behind the old one: a backlog of a slow job would only
 * grow); `allow` always runs.
 *
 * "In flight" is not read from the run history (a SKIPPED occurrence would hide an older one still
 * RUNNING, and a Query over the history per call costs): under `forbid`, the executor holds a marker
 * on the job item from right before its call until the occurrence's outcome is final — through a
 * retry backoff too, so the retry (the same occurrence) finds its place kept. A marker expires at
 * `until`, so a crashed executor's marker frees the job by itself.
 */
import type { OverlapPolicy } from './types.ts';

/** Which occurrence of the job is in flight, and until when at the latest. */
export interface InFlightMarker {
  /** The occurrence holding the job (its retries share it). */
  scheduledFor: number;
  /** The run that took or last extended the marker. */
  runId: string;
  /** Epoch ms: the marker is free after this (the holder's lease end, or its retry's). */
  until: number;
}

export type OverlapDecision = { action: 'run' } | { action: 'skip'; reason: string };

/** Whether `occurrence` may take (or keep) the job's marker at `now`: free, expired, or already its own. */
export function mayHoldInFlight(marker: InFlightMarker | undefined, occurrence: number, now: number): boolean {
  return marker === undefined || marker.until < now || marker.scheduledFor === occurrence;
}

/**
 * With `forbid`, skips when another occurrence holds the job's in-flight marker; otherwise (or with
 * `allow`) runs. `holder` is the marker found when taking it failed.
 */
export function decideOverlap(
  policy: OverlapPolicy,
  holder: InFlightMarker | undefined,
  occurrence: number,
  now: number,
): OverlapDecision {
  if (policy === 'forbid' && holder && !mayHoldInFlight(holder, occurrence, now)) {
    return {
      action: 'skip',
      reason: `overlap forbidden: the occurrence of ${instant(holder.scheduledFor)} (run ${holder.runId}) is still in flight`,
    };
  }
  return { action: 'run' };
}

/** An instant for a message; never throws, whatever the stored number is. */
function instant(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? String(ms) : date.toISOString();
}
