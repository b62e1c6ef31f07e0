/**
 * Overlap policy: may an occurrence start while the job's previous run is still in flight?
 * `forbid` skips the new occurrence (it is not queued behind the old one: a backlog of a slow job would only
 * grow); `allow` always runs.
 */
import type { RunStatus } from '../run-state.ts';
import type { OverlapPolicy } from './types.ts';

/** Statuses of a run that has not finished yet. */
const IN_FLIGHT: readonly string[] = ['QUEUED', 'RUNNING'] satisfies readonly RunStatus[];

export type OverlapDecision = { action: 'run' } | { action: 'skip'; reason: string };

/** With `forbid`, skips when the previous run is QUEUED or RUNNING; otherwise (or with `allow`) runs. */
export function decideOverlap(policy: OverlapPolicy, previousRun: { status: string } | undefined): OverlapDecision {
  if (policy === 'forbid' && previousRun && IN_FLIGHT.includes(previousRun.status)) {
    return { action: 'skip', reason: `overlap forbidden: previous run is still ${previousRun.status}` };
  }
  return { action: 'run' };
}
