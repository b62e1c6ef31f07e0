/**
 * What the executor needs for the per-tenant in-flight cap: the tenant's maxConcurrentRuns
 * (cached per process for a minute: the tenant item is read once, not once per message) and the
 * way a throttled message goes back to the queue.
 */
import type { DispatchMessage } from '#core/model';
import type { RunSlots } from '#core/tenants/ports';
import { MAX_DEFERRALS, type ReceivedDispatchMessage } from './dispatch-message.ts';
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

/** Longest deferral: a tenant far over its cap is looked at twice a minute per message, not every second. */
const MAX_DEFERRAL_SECONDS = 30;

/**
 * Sends a throttled run's message again, delayed 1 s, then 2, 4, 8... up to 30 s for each further
 * deferral (plus up to a second of jitter, so a flood does not come back in lockstep): a tenant far
 * over its cap stops costing the executors a receive per message per second. A fresh message
 * rather than the original returned to the queue: a batch-item failure would wait out the whole
 * visibility timeout, and every return would count towards maxReceiveCount and end in the
 * dead-letter queue. Should the acknowledgement fail after the send, the run's conditional claim
 * makes the duplicate harmless.
 */
export async function sendBackLater(message: ReceivedDispatchMessage): Promise<void> {
  const deferrals = Math.min(MAX_DEFERRALS, (message.deferrals ?? 0) + 1);
  const delaySeconds = Math.min(MAX_DEFERRAL_SECONDS, 2 ** (deferrals - 1)) + Math.round(Math.random());
  await runDispatcher().dispatch([
    { message: { ...message, deferrals } as DispatchMessage, releaseAt: Date.now() + delaySeconds * 1000 },
  ]);
}

/** How long a run waits for one of its tenant's slots before its message is sent back. */
const SLOT_PATIENCE_MS = 250;

/**
 * The slots, patient for a moment: most calls take milliseconds, so a slot is often free again
 * long before a deferral (whole seconds of SQS delay) would bring the message back. Kept short:
 * the wait holds the record's executor, which other tenants' messages may be queueing for.
 */
export function patientRunSlots(slots: RunSlots): RunSlots {
  return {
    release: (tenantId, runId) => slots.release(tenantId, runId),
    acquire: async (tenantId, runId, cap, expiresAt, now) => {
      const giveUpAt = Date.now() + SLOT_PATIENCE_MS;
      for (;;) {
        if (await slots.acquire(tenantId, runId, cap, expiresAt, Math.max(now, Date.now()))) return true;
        if (Date.now() >= giveUpAt) return false;
        await new Promise((resolve) => setTimeout(resolve, 30 + Math.random() * 40));
      }
    },
  };
}
