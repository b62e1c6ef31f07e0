/**
 * The executor's side of flow control (core/flow-control/): a run whose job names a key passes
 * the key's gate before it is claimed, and gives its slot back once its call is over — waking the
 * first run waiting for the key, whose message it sends.
 */
import { decideGate, decideRelease, type GateDecision } from '../flow-control/flow-gate.ts';
import type { FlowKeyStore } from '../flow-control/ports.ts';
import type { DispatchMessage, Job } from '../model.ts';
import type { Clock, RunDispatcher } from '../ports.ts';
import { laneOf } from '../priority.ts';

export interface FlowGateDeps {
  keys: FlowKeyStore;
  /** Sends a woken waiter's message. */
  dispatcher: RunDispatcher;
}

/** Whether the run may start, and when; `leaseSpanMs` is how long its call may hold a slot past its start. */
export function passFlowGate(
  deps: FlowGateDeps,
  job: Job & { flowControl: NonNullable<Job['flowControl']> },
  message: DispatchMessage,
  clock: Clock,
  leaseSpanMs: number,
): Promise<GateDecision> {
  // Decided on the time of the decision, not of the request: a decision made after others of the
  // same key (or a conflict) must not hand out an instant already past.
  return deps.keys.change(message.tenantId, job.flowControl.key, (state) => {
    const now = clock.now();
    const run = {
      runId: message.runId,
      lane: laneOf(job),
      message,
      readyAt: Math.max(now, message.scheduledFor),
      leaseSpanMs,
    };
    return decideGate(state, job.flowControl, run, now);
  });
}

/**
 * Gives the run's slot of `key` back and wakes the first waiter, if any. Best effort: a slot not
 * given back is free at its lease end, and a waiter not woken comes back by its own delayed message.
 */
export async function releaseFlowSlot(
  deps: FlowGateDeps,
  tenantId: string,
  key: string,
  runId: string,
  now: number,
): Promise<void> {
  const { wake } = await deps.keys.change(tenantId, key, (state) => decideRelease(state, runId, now));
  if (wake) await deps.dispatcher.dispatch([{ message: wake, releaseAt: now }]);
}
