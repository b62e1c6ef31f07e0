/**
 * Sending runs that are already stored. Every new run enters the runs table's sweep index at
 * `sweepAtOf` (its release time plus a grace): should its message never bring it to an executor —
 * the writer died between the put and the send, or SQS refused the send — the scanner's sweep
 * finds it there and sends it, and the executor's claim takes it out. So once a run is stored, a
 * failed send is not the writer's error: it is reported and left to the sweep, and the API call,
 * scanner pass or stream record that wrote the run carries on.
 */
import type { Run } from '../model.ts';
import type { DispatchRequest, RunDispatcher } from '../ports.ts';
import { DEFAULT_PRIORITY, laneOf } from '../priority.ts';

/**
 * How long after its release a run may stay unclaimed before the sweep sends it again (deployed
 * default; SWEEP_GRACE_SECONDS). Long enough that an executor backlog of ordinary size does not
 * turn into duplicate messages; every duplicate is harmless (the claim is conditional), only paid for.
 */
export const DEFAULT_SWEEP_GRACE_MS = 60_000;

/** When the queue should release the run: its occurrence, or for a retry its backoff. */
export function releaseAtOf(run: Pick<Run, 'scheduledFor' | 'availableAt'>): number {
  return Math.max(run.scheduledFor, run.availableAt ?? 0);
}

/**
 * Where a new run waits in the sweep index: its release (or its creation, for a run created late,
 * such as a catch-up of missed occurrences) plus the grace. Claimed by then, it is long gone from it.
 */
export function sweepAtOf(run: Pick<Run, 'scheduledFor' | 'availableAt' | 'createdAt'>, graceMs: number): number {
  return Math.max(releaseAtOf(run), run.createdAt) + graceMs;
}

/**
 * The dispatch request of a stored run: its queue message, released at `releaseAt`. The message
 * names the run's lane (absent: `normal`), so the dispatcher sends it to that lane's queue, and a
 * message the executor sends back (a tenant at its cap) stays in it.
 */
export function dispatchRequestOf(
  run: Pick<Run, 'tenantId' | 'jobId' | 'scheduledFor' | 'attempt' | 'runId' | 'priority'>,
  releaseAt: number,
): DispatchRequest {
  const { tenantId, jobId, scheduledFor, attempt, runId } = run;
  const lane = laneOf(run);
  const message = { tenantId, jobId, scheduledFor, attempt, runId };
  return { message: lane === DEFAULT_PRIORITY ? message : { ...message, priority: lane }, releaseAt };
}

/**
 * Sends stored runs to the dispatch queue. Never throws: a failed send goes to the dispatcher's
 * `unsent` report (a log line) and the runs to the sweep. Returns whether the send went through.
 */
export async function sendRuns(dispatcher: RunDispatcher, requests: DispatchRequest[]): Promise<boolean> {
  if (requests.length === 0) return true;
  try {
    await dispatcher.dispatch(requests);
    return true;
  } catch (error) {
    dispatcher.unsent?.(requests, error);
    return false;
  }
}
