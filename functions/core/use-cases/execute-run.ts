/**
 * The executor's work for one dispatch message: claim the run with a lease, wait out the
 * sub-second rest until its due time, call the target, record the outcome — and, for a failure
 * the job's retry policy covers, when the next attempt starts (the completion handler creates it).
 *
 * A redelivered or duplicate message finds the run finished (acknowledged, no call) or under a
 * live lease (handed back to the queue, so that it is retried after the lease would have
 * expired, in case its holder died). A run whose lease expired is taken over (at-least-once,
 * counted as a recovery) or ends FAILED as `lost` (at-most-once: never a second call). The
 * message is hidden until the lease ends as the claim is made (`redelivery`): that is how a run
 * whose executor died is found again.
 */
import { type DeliveryTiming, deliveryStamp } from '../delivery-stamp.ts';
import type { DispatchMessage, Job, Run } from '../model.ts';
import type {
  Clock,
  HttpInvoker,
  HttpResult,
  JobRepository,
  RunOutcome,
  RunRedelivery,
  RunRepository,
} from '../ports.ts';
import { nextAttemptAt } from '../retry-policy.ts';
import { idempotencyKeyOf } from '../run-id.ts';
import { isTerminal } from '../run-state.ts';
import { decideOverlap } from '../schedule/index.ts';
import type { SecretCipher } from '../secrets/secret-cipher.ts';
import { openSecretHeaders } from '../secrets/secret-headers.ts';
import { type SigningKeySet, type SigningKeys, signatureHeaders } from '../signing.ts';
import { inFlightCapCanBind } from '../tenants/in-flight-cap.ts';
import type { RunSlots } from '../tenants/ports.ts';

export interface ExecuteRunDeps {
  jobs: JobRepository;
  runs: RunRepository;
  invoker: HttpInvoker;
  /** The tenant's secrets that sign every call (Chronos-Signature). */
  signingKeys: SigningKeys;
  clock: Clock;
  /** Uniform in [0, 1): the jitter of retry backoff. */
  random: () => number;
  config: { leaseMarginMs: number; owner: string };
  /**
   * Per-tenant cap on calls in flight (the tenant's maxConcurrentRuns): a run whose tenant is at
   * its cap is not claimed ('throttled') and its message must come back shortly. A cap of at least
   * `fleetMaxCallsInFlight` (the executors' concurrency × batch size; unset: no bound) can never
   * bind, and its runs take no slot.
   */
  slots?: {
    slots: RunSlots;
    capOf: (tenantId: string) => number | Promise<number>;
    fleetMaxCallsInFlight?: number;
  };
  /** Opens secret target headers right before the call. */
  secrets?: SecretCipher;
  /** Brings the message back when the lease of a claimed run ends, should this executor die first. */
  redelivery?: RunRedelivery;
}

export type ExecuteRunResult =
  | { kind: 'called'; run: Run; outcome: RunOutcome }
  | { kind: 'cancelled' }
  | { kind: 'skipped'; reason: string }
  | { kind: 'lost' }
  | { kind: 'already-finished' }
  | { kind: 'missing' }
  /** The tenant is at its in-flight cap: send the message back with a short delay. */
  | { kind: 'throttled' }
  /** Another executor holds a live lease: the message must come back later. */
  | { kind: 'leased-elsewhere'; leaseExpiresAt?: number };

/** A slot is taken this long before the due time: enough for the claim and the reads that follow it. */
export const SLOT_LEAD_MS = 200;

/** Thrown so the message returns to the queue instead of being acknowledged. */
export class RunBusyError extends Error {
  constructor(runId: string) {
    super(`run ${runId} is leased by another executor`);
    this.name = 'RunBusyError';
  }
}

/** Maps an HTTP result to the run's terminal outcome (without the retry decision). */
export function outcomeOf(result: HttpResult, completedAt: number): RunOutcome {
  const timing = { startedAt: result.startedAt, durationMs: result.durationMs, completedAt };
  if (result.kind === 'error') {
    return {
      ...timing,
      status: result.errorType === 'timeout' ? 'TIMED_OUT' : 'FAILED',
      errorType: result.errorType,
      error: result.message,
    };
  }
  if (result.status >= 200 && result.status < 300) {
    return { ...timing, status: 'SUCCEEDED', httpStatus: result.status, responseExcerpt: result.bodyExcerpt };
  }
  return {
    ...timing,
    status: 'FAILED',
    httpStatus: result.status,
    responseExcerpt: result.bodyExcerpt,
    errorType: result.status >= 500 ? 'http_5xx' : 'http_4xx',
    error: `target answered HTTP ${result.status}`,
    ...(result.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: result.retryAfterSeconds }),
  };
}

/** at-most-once jobs never retry, whatever their retry policy says. */
function maxAttemptsOf(job: Job): number {
  return job.delivery === 'at-most-once' ? 1 : job.retry.maxAttempts;
}

function withRetryDecision(job: Job, attempt: number, outcome: RunOutcome, random: number): RunOutcome {
  if (outcome.status === 'SUCCEEDED') return outcome;
  const at = nextAttemptAt(
    { ...job.retry, maxAttempts: maxAttemptsOf(job) },
    attempt,
    outcome,
    outcome.completedAt,
    random,
  );
  return at === undefined ? outcome : { ...outcome, nextAttemptAt: at };
}

function requestOf(
  job: Job,
  message: DispatchMessage,
  keys: SigningKeySet,
  now: number,
  secretHeaders: Record<string, string> = {},
) {
  const signed = {
    url: job.target.url,
    method: job.target.method,
    ...(job.target.body === undefined || job.target.method === 'GET' || job.target.method === 'HEAD'
      ? {}
      : { body: job.target.body }),
  };
  return {
    ...signed,
    headers: {
      ...job.target.headers,
      ...secretHeaders,
      'Idempotency-Key': idempotencyKeyOf(message),
      'Chronos-Run-Id': message.runId,
      ...signatureHeaders(signed, keys, now),
    },
    timeoutMs: job.timeoutSeconds * 1000,
  };
}

/** Executes the run a dispatch message points at, making at most one HTTP call for it. */
export async function executeRun(
  deps: ExecuteRunDeps,
  message: DispatchMessage,
  delivery?: DeliveryTiming,
): Promise<ExecuteRunResult> {
  const cap = deps.slots ? await deps.slots.capOf(message.tenantId) : undefined;
  const capped =
    deps.slots && cap !== undefined && inFlightCapCanBind(cap, deps.slots.fleetMaxCallsInFlight ?? Infinity)
      ? { slots: deps.slots.slots, cap }
      : undefined;
  // A message may arrive up to a second early (SQS delays are whole seconds). With a per-tenant
  // cap, wait first, so that a slot is held for the call, not for the wait before it; the job is
  // read after the wait, so what the claim decides on is as fresh as without a cap.
  if (capped) await deps.clock.sleepUntil(message.scheduledFor - SLOT_LEAD_MS);
  const job = await deps.jobs.get(message.tenantId, message.jobId);
  const now = deps.clock.now();
  const timeoutMs = (job?.timeoutSeconds ?? 0) * 1000;
  const lease = {
    owner: deps.config.owner,
    expiresAt: Math.max(now, message.scheduledFor) + timeoutMs + deps.config.leaseMarginMs,
    now,
    takeOverExpired: job?.delivery !== 'at-most-once',
  };
  // The slot expires with the lease: an executor that dies holding it frees it by then.
  const slot = job ? capped : undefined;
  if (slot && !(await slot.slots.acquire(message.tenantId, message.runId, slot.cap, lease.expiresAt, now))) {
    return { kind: 'throttled' };
  }
  try {
    return await claimAndCall(deps, message, job, lease, delivery);
  } finally {
    await slot?.slots.release(message.tenantId, message.runId);
  }
}

async function claimAndCall(
  deps: ExecuteRunDeps,
  message: DispatchMessage,
  job: Job | undefined,
  pickedUp: { owner: string; expiresAt: number; now: number; takeOverExpired: boolean },
  delivery: DeliveryTiming | undefined,
): Promise<ExecuteRunResult> {
  // The lease starts now, not when the message was picked up: a slot wait or a slow read before
  // the claim must not eat into the time the call is allowed.
  const now = deps.clock.now();
  const lease = {
    ...pickedUp,
    now,
    expiresAt: Math.max(now, message.scheduledFor) + (job?.timeoutSeconds ?? 0) * 1000 + deps.config.leaseMarginMs,
  };
  // Told before the claim is written, not after: an executor that dies once its claim is durable
  // but before the message is hidden would leave the run to the queue's half-hour timeout. A claim
  // that fails costs nothing here: a finished run's message is deleted with the batch, and one under
  // another executor's live lease comes back once a lease like ours would have ended.
  deps.redelivery?.afterLease(lease.expiresAt);
  const claim = await deps.runs.claim(message, lease);
  if (!claim.claimed) {
    if (!claim.run) return { kind: 'missing' };
    if (isTerminal(claim.run.status)) return { kind: 'already-finished' };
    if (claim.expired && claim.run.leaseExpiresAt !== undefined) {
      await deps.runs.markLost(message, claim.run.leaseExpiresAt, now);
      return { kind: 'lost' };
    }
    return {
      kind: 'leased-elsewhere',
      ...(claim.run.leaseExpiresAt ? { leaseExpiresAt: claim.run.leaseExpiresAt } : {}),
    };
  }

  if (!job || job.status === 'CANCELLED') {
    const reason = job ? 'job was cancelled before the run started' : 'job no longer exists';
    await deps.runs.complete(message, lease.owner, {
      status: 'CANCELLED',
      completedAt: deps.clock.now(),
      errorType: 'cancelled',
      error: reason,
    });
    return { kind: 'cancelled' };
  }

  // Fetched before the wait, so that the call still starts at the due millisecond.
  const keys = await deps.signingKeys.keysFor(job.tenantId);
  const secretHeaders =
    job.target.secretHeaders && deps.secrets
      ? await openSecretHeaders(deps.secrets, job.tenantId, job.target.secretHeaders)
      : undefined;
  if (job.status === 'PAUSED' && !claim.run.triggered) {
    // A scan that read the job just before it was paused may still have materialized this
    // occurrence; pausing means no scheduled call goes out, so it ends here, visibly.
    await deps.runs.complete(message, lease.owner, {
      status: 'SKIPPED',
      completedAt: deps.clock.now(),
      errorType: 'paused',
      error: 'job was paused before the run started',
    });
    return { kind: 'skipped', reason: 'job was paused' };
  }

  await deps.clock.sleepUntil(Math.max(message.scheduledFor, claim.run.availableAt ?? 0));
  if (job.policies.overlap === 'forbid') {
    // Decided at the due time, not at claim time: the predecessor may finish in between.
    const decision = decideOverlap('forbid', await deps.runs.previous(message));
    if (decision.action === 'skip') {
      await deps.runs.complete(message, lease.owner, {
        status: 'SKIPPED',
        completedAt: deps.clock.now(),
        errorType: 'overlap',
        error: decision.reason,
      });
      return { kind: 'skipped', reason: decision.reason };
    }
  }
  if (deps.clock.now() + job.timeoutSeconds * 1000 > lease.expiresAt) {
    // Stalled between claim and call (an overloaded host): the lease could run out mid-call and
    // another executor take the run over, calling it twice. Not calling keeps the one-call
    // promise; the run is recovered once this lease expires.
    return { kind: 'leased-elsewhere', leaseExpiresAt: lease.expiresAt };
  }
  const result = await deps.invoker.invoke(requestOf(job, message, keys, deps.clock.now(), secretHeaders));
  const outcome = withRetryDecision(job, message.attempt, outcomeOf(result, deps.clock.now()), deps.random());
  // The stamp rides along with the outcome: the repository records every field it is given.
  await deps.runs.complete(message, lease.owner, { ...outcome, ...deliveryStamp(job, delivery) });
  return { kind: 'called', run: claim.run, outcome };
}
