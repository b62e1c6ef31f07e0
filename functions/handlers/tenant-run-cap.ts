/**
 * What the executor needs for the per-tenant in-flight cap: the tenant's maxConcurrentRuns
 * (cached per process for a minute: the tenant item is read once, not once per message) and the
 * way a throttled message goes back to the queue.
 */
import type { DispatchMessage } from '#core/model';
import { quotasOf, runDispatcher } from './wiring.ts';

const CAP_CACHE_MS = 60_000;
const caps = new Map<string, { cap: number; until: number }>();

/** The tenant's maxConcurrentRuns, from a per-process cache. */
export async function runCapOf(tenantId: string): Promise<number> {
  const cached = caps.get(tenantId);
  if (cached && cached.until > Date.now()) return cached.cap;
  const cap = (await quotasOf(tenantId)).maxConcurrentRuns;
  caps.set(tenantId, { cap, until: Date.now() + CAP_CACHE_MS });
  return cap;
}

/**
 * Sends a throttled run's message again, due in 1–2 s (jittered so a flood does not come back in
 * lockstep), after which the original is acknowledged. A fresh message rather than the original
 * returned to the queue: a batch-item failure would wait out the whole visibility timeout, and
 * every return would count towards maxReceiveCount and end in the dead-letter queue. Should the
 * acknowledgement fail after the send, the run's conditional claim makes the duplicate harmless.
 */
export async function sendBackLater(message: DispatchMessage): Promise<void> {
  await runDispatcher().dispatch([{ message, delaySeconds: 1 + Math.round(Math.random()) }]);
}
