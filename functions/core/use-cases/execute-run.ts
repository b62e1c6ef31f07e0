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
 *
 * Once the target was called, its outcome is recorded whatever it holds (record-outcome.ts): a run
 * never stays RUNNING for want of a write, so no lease runs out and no call is repeated for it.
 * Before the call, any failure (a read, the tenant's cap, KMS, the signing keys) gives back a claim
 * already made and is a FailedBeforeCallError, so the message can come back within seconds.
 * Under `overlap: "forbid"` the call is made only while the run's occurrence holds the job's
 * in-flight marker (schedule/overlap.ts).
 */
import { type DeliveryTiming, deliveryStamp } from '../delivery-stamp.ts';
import type { DispatchMessage, Job, Run } from '../model.ts';
import type {
  Clock,
  HttpInvoker,
  HttpRequest,
  JobRepository,
  Lease,
  RunOutcome,
  RunRedelivery,
  RunRepository,
} from '../ports.ts';
import type { ReleaseSpread, ReleaseSpreadOptions } from '../release-spread.ts';
import { nextAttemptAt } from '../retry-policy.ts';
import { idempotencyKeyOf } from '../run-id.ts';
import { isTerminal } from '../run-state.ts';
import { decideOverlap } from '../schedule/overlap.ts';
import type { SecretCipher } from '../secrets/secret-cipher.ts';
import { openSecretHeaders } from '../secrets/secret-headers.ts';
import { type SigningKeys, webhookHeaders } from '../signing.ts';
import { inFlightCapCanBind } from '../tenants/in-flight-cap.ts';
import type { RunSlots } from '../tenants/ports.ts';
import { isWorkflowHead, isWorkflowTaskJob, type WorkflowHead, type WorkflowTaskJob } from '../workflows/stored.ts';
import { type AcceptResult, acceptAsyncRun } from './async/accept-async-run.ts';
import { ACCEPTED_STATUS, type AsyncCallDeps, asyncCallHeaders } from './async/async-call.ts';
import { type FlowGateDeps, passFlowGate, releaseFlowSlot } from './flow-gate.ts';
import { recordOutcome, withRetries } from './record-outcome.ts';
import { outcomeOf } from './target-outcome.ts';
import { startScheduledWorkflowRun } from './workflows/start-workflow-run.ts';
import type { WorkflowRunDeps } from './workflows/workflow-run-deps.ts';

export { outcomeOf };

export interface ExecuteRunDeps {
  jobs: JobRepository;
  runs: RunRepository;
  invoker: HttpInvoker;
  /** The tenant's own secrets that sign every call (Standard Webhooks, signing.ts). */
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
  /** Async jobs' callback URL and the record of their 202 (use-cases/async/async-call.ts). */
  async?: AsyncCallDeps;
  /** The workflow runs a scheduled workflow's starter runs start (use-cases/workflows/). */
  workflows?: WorkflowRunDeps;
  /** Flow control per key (core/flow-control/): without it, `flowControl` is not enforced. */
  flow?: FlowGateDeps;
  /**
   * When the runs of this process that waited for the same call second read their jobs again:
   * RECHECK_SPREAD, one instance per process. Unset: every one RECHECK_BEFORE_CALL_MS before it.
   */
  recheckSpread?: ReleaseSpread;
}

export type ExecuteRunResult =
  /** `outcomeReduced`: the outcome was stored without some of its fields, and why. */
  | { kind: 'called'; run: Run; outcome: RunOutcome; outcomeReduced?: string }
  /** An async job's target took the work (202): the run stays RUNNING under its callbacks' deadlines. */
  | { kind: 'accepted'; run: Run; acceptance: AcceptResult }
  | { kind: 'cancelled' }
  /** A scheduled workflow's occurrence: its workflow run was started instead of a call. */
  | { kind: 'workflow-started'; workflowRunId: string }
  | { kind: 'skipped'; reason: string }
  | { kind: 'lost' }
  | { kind: 'already-finished' }
  | { kind: 'missing' }
  /** The tenant is at its in-flight cap: send the message back with a short delay. */
  | { kind: 'throttled' }
  /** The run's flow-control key says not yet: send the message again, delayed to `until` (the run stays QUEUED). */
  | { kind: 'waiting'; until: number; reason: 'rate' | 'parallelism' }
  /** Another executor holds a live lease: the message must come back later. */
  | { kind: 'leased-elsewhere'; leaseExpiresAt?: number };

/** A slot is taken this long before the due time: enough for the claim and the reads that follow it. */
export const SLOT_LEAD_MS = 200;

/**
 * Something failed before the target was called (a throttled read, the tenant's cap, the signing
 * keys, KMS...): no call was made, and a claim already made was given back, so the message may
 * come back within seconds rather than when a lease or the queue's visibility timeout ends.
 */
export class FailedBeforeCallError extends Error {
  constructor(cause: unknown) {
    super(`run not called: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'FailedBeforeCallError';
  }
}

/** Thrown so the message returns to the queue instead of being acknowledged. */
export class RunBusyError extends Error {
  constructor(runId: string) {
    super(`run ${runId} is leased by another executor`);
    this.name = 'RunBusyError';
  }
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
  keys: readonly string[],
  now: number,
  secretHeaders: Record<string, string> = {},
) {
  const idempotencyKey = idempotencyKeyOf(message);
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
      'Idempotency-Key': idempotencyKey,
      'Chronos-Run-Id': message.runId,
      // webhook-id is the occurrence, like Idempotency-Key: the same across retries and recoveries.
      ...webhookHeaders({ id: idempotencyKey, ...(signed.body === undefined ? {} : { body: signed.body }) }, keys, now),
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
  const picked = await beforeCall(() => pickUp(deps, message));
  if (picked.kind === 'throttled' || picked.kind === 'waiting') return picked;
  const { job, lease, slot, flow } = picked;
  let result: ExecuteRunResult | undefined;
  try {
    result = await claimAndCall(deps, message, job, lease, delivery, flow);
    return result;
  } finally {
    // Best effort: a slot expires with the lease, and a failed release must not hide how the run ended.
    await slot?.slots.release(message.tenantId, message.runId).catch(() => undefined);
    // A run under another executor's lease shares its key slot (same run id): that one gives it back.
    if (result?.kind !== 'leased-elsewhere') await giveFlowSlotBack(deps, job, message, flow);
  }
}

/** What the run's flow-control key allowed: the call's instant, the time spent waiting, whether it holds a slot. */
interface FlowPass {
  startAt: number;
  waitedMs?: number;
  holdsSlot: boolean;
  /** Under a rate: the call may not start after this (flow-gate.ts). */
  startBy?: number;
}

async function giveFlowSlotBack(
  deps: ExecuteRunDeps,
  job: Job | undefined,
  message: DispatchMessage,
  flow: FlowPass | undefined,
): Promise<void> {
  if (!deps.flow || !job?.flowControl || !flow?.holdsSlot) return;
  await releaseFlowSlot(deps.flow, message.tenantId, job.flowControl.key, message.runId, deps.clock.now()).catch(
    () => undefined,
  );
}

/** Reads what the claim decides on and takes the tenant's slot, if it is capped. */
async function pickUp(deps: ExecuteRunDeps, message: DispatchMessage) {
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
  const leaseSpanMs = timeoutMs + deps.config.leaseMarginMs;
  // The key's gate comes first: a run that must wait takes no tenant slot and makes no claim.
  // Only a run that may be claimed passes it — QUEUED, or RUNNING under a lease that ran out (its
  // executor died: taken over, it calls again, so it needs a slot as any call does). A duplicate
  // message of a run under way or finished (a waiter's fallback message after its wake) goes on to
  // the claim, which turns it away.
  const gated = deps.flow && job?.flowControl && claimable(await deps.runs.get(message), now, job);
  const gate =
    gated && deps.flow && job?.flowControl
      ? await passFlowGate(deps.flow, { ...job, flowControl: job.flowControl }, message, deps.clock, leaseSpanMs)
      : undefined;
  if (gate?.kind === 'wait') return { kind: 'waiting' as const, until: gate.until, reason: gate.reason };
  const flow: FlowPass | undefined = gate;
  const lease = {
    owner: deps.config.owner,
    expiresAt: Math.max(now, message.scheduledFor, flow?.startAt ?? 0) + leaseSpanMs,
    now,
    takeOverExpired: job?.delivery !== 'at-most-once',
    ...(job?.async ? { async: job.async } : {}),
  };
  // The slot expires with the lease: an executor that dies holding it frees it by then.
  const slot = job ? capped : undefined;
  if (slot && !(await slot.slots.acquire(message.tenantId, message.runId, slot.cap, lease.expiresAt, now))) {
    await giveFlowSlotBack(deps, job, message, flow);
    return { kind: 'throttled' as const };
  }
  return { kind: 'picked' as const, job, lease, slot, flow };
}

/** Whether a claim could take `run` now: QUEUED, or RUNNING under an expired lease of an at-least-once job. */
function claimable(run: Run | undefined, now: number, job: Job): boolean {
  if (run?.status === 'QUEUED') return true;
  const expired = run?.status === 'RUNNING' && (run.leaseExpiresAt ?? Number.POSITIVE_INFINITY) < now;
  return expired && job.delivery !== 'at-most-once';
}

/** Runs a step that comes before any call: its failure is a FailedBeforeCallError. */
async function beforeCall<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw error instanceof FailedBeforeCallError ? error : new FailedBeforeCallError(error);
  }
}

async function claimAndCall(
  deps: ExecuteRunDeps,
  message: DispatchMessage,
  job: Job | undefined,
  pickedUp: Lease,
  delivery: DeliveryTiming | undefined,
  flow?: FlowPass,
): Promise<ExecuteRunResult> {
  // The lease starts now, not when the message was picked up: a slot wait or a slow read before
  // the claim must not eat into the time the call is allowed. A key's start instant delays the call.
  const now = deps.clock.now();
  const notBefore = Math.max(message.scheduledFor, flow?.startAt ?? 0);
  const lease = {
    ...pickedUp,
    now,
    expiresAt: Math.max(now, notBefore) + (job?.timeoutSeconds ?? 0) * 1000 + deps.config.leaseMarginMs,
    ...(flow?.waitedMs === undefined ? {} : { waitedMs: flow.waitedMs }),
  };
  // Told before the claim is written, not after: an executor that dies once its claim is durable
  // but before the message is hidden would leave the run to the queue's half-hour timeout. A claim
  // that fails costs nothing here: a finished run's message is deleted with the batch, and one under
  // another executor's live lease comes back once a lease like ours would have ended.
  deps.redelivery?.afterLease(lease.expiresAt);
  const claim = await beforeCall(async () => {
    try {
      return await deps.runs.claim(message, lease);
    } catch (error) {
      // The write may have landed though its answer was lost (a timeout): give back what may be ours.
      await deps.runs.release(message, lease.owner, lease.expiresAt).catch(() => undefined);
      throw error;
    }
  });
  if (!claim.claimed) {
    if (!claim.run) return { kind: 'missing' };
    if (isTerminal(claim.run.status)) return { kind: 'already-finished' };
    if (claim.expired && claim.run.leaseExpiresAt !== undefined) {
      const expiredAt = claim.run.leaseExpiresAt;
      await beforeCall(() => deps.runs.markLost(message, expiredAt, now));
      return { kind: 'lost' };
    }
    return {
      kind: 'leased-elsewhere',
      ...(claim.run.leaseExpiresAt ? { leaseExpiresAt: claim.run.leaseExpiresAt } : {}),
    };
  }
  let prepared: Prepared;
  try {
    prepared = await prepareCall(deps, message, job, claim.run, lease, notBefore, flow?.startBy);
  } catch (error) {
    // Nothing was called: give the claim back, so the message that comes back within seconds can
    // claim the run at once. Should that fail too, the lease runs out and the run is taken over.
    await deps.runs.release(message, lease.owner, lease.expiresAt).catch(() => undefined);
    throw new FailedBeforeCallError(error);
  }
  if (prepared.kind === 'waiting') {
    // Too late for its key's instant: the claim is given back and the run passes the gate again.
    await deps.runs.release(message, lease.owner, lease.expiresAt).catch(() => undefined);
    return prepared;
  }
  if (prepared.kind !== 'call') return prepared;
  const { job: ready, request, holdsInFlight } = prepared;

  const result = await deps.invoker.invoke(request);
  const answeredAt = deps.clock.now();
  if (ready.async && deps.async && result.kind === 'response' && result.status === ACCEPTED_STATUS) {
    await callsFirst(deps);
    const call = { startedAt: result.startedAt, httpStatus: result.status, ...deliveryStamp(ready, delivery) };
    return acceptCall(deps, deps.async, message, ready, claim.run, lease.owner, holdsInFlight, call);
  }
  const outcome = withRetryDecision(ready, message.attempt, outcomeOf(result, answeredAt), deps.random());
  // A failure to retry is written at once: its retry is released from the answer's time.
  if (outcome.nextAttemptAt === undefined) await callsFirst(deps);
  // The stamp rides along with the outcome: the repository records every field it is given.
  const stored = await recordOutcome(
    deps,
    message,
    lease.owner,
    { ...outcome, ...deliveryStamp(ready, delivery) },
    lease.expiresAt,
  );
  // Only the lease holder speaks for the occurrence: a run taken over meanwhile keeps the marker.
  if (holdsInFlight && stored.recorded) await settleInFlight(deps, ready, message, outcome);
  return {
    kind: 'called',
    run: claim.run,
    outcome,
    ...(stored.reduced === undefined ? {} : { outcomeReduced: stored.reduced }),
  };
}

/**
 * Calls first: what an answer changes is written once the calls this process is still sending
 * have gone out (adapters/http/calls-going-out.ts), so a burst's bookkeeping does not delay its
 * own calls. Held back at most a second, and never more than a quarter of the lease's margin.
 */
const CALLS_FIRST_MAX_WAIT_MS = 1_000;

function callsFirst(deps: ExecuteRunDeps): Promise<void> {
  return (
    deps.invoker.untilCallsSent?.(Math.min(CALLS_FIRST_MAX_WAIT_MS, deps.config.leaseMarginMs / 4)) ?? Promise.resolve()
  );
}

type Prepared =
  | {
      kind: 'call';
      job: Job;
      request: HttpRequest;
      holdsInFlight: boolean;
    }
  | Exclude<ExecuteRunResult, { kind: 'called' }>;

/**
 * Everything between the claim and the call: decides whether the call goes out (cancelled, paused,
 * overlap) and reads what it needs. Any error thrown here means nothing was called.
 */
async function prepareCall(
  deps: ExecuteRunDeps,
  message: DispatchMessage,
  job: Job | undefined,
  run: Run,
  lease: { owner: string; expiresAt: number },
  notBefore: number,
  startBy?: number,
): Promise<Prepared> {
  const end = async (outcome: Omit<RunOutcome, 'completedAt'>) => {
    await recordOutcome(deps, message, lease.owner, { ...outcome, completedAt: deps.clock.now() });
  };
  const stopped = await stopBeforeCall(job, run, end);
  if (stopped) return stopped;
  if (!job) return { kind: 'cancelled' };
  if (isWorkflowHead(job)) return startWorkflow(deps, message, job, run, end);
  if (isWorkflowTaskJob(job) && (await workflowDeleted(deps, job))) {
    // Deleting a workflow stops its runs' tasks as they come to be called, as a job's cancel stops its runs.
    await end({ status: 'CANCELLED', errorType: 'cancelled', error: 'workflow was deleted before the task started' });
    return { kind: 'cancelled' };
  }

  // Fetched before the wait, so that the call still starts at the due millisecond.
  const keys = await deps.signingKeys.keysFor(job.tenantId);
  const secretHeaders =
    job.target.secretHeaders && deps.secrets
      ? await openSecretHeaders(deps.secrets, job.tenantId, job.target.secretHeaders)
      : undefined;
  const asyncHeaders = job.async ? await asyncCallHeaders(requireAsync(deps), message) : undefined;

  const callAt = Math.max(notBefore, run.availableAt ?? 0);
  if (callAt - deps.clock.now() > RECHECK_AFTER_WAIT_MS) {
    // Released early (a burst spread over the seconds before it, core/release-spread.ts): the job
    // read at the claim may be seconds old by the due time, so it is read again shortly before it,
    // and a pause or cancel made meanwhile stops the call rather than being missed. As for every
    // run, what changes in the last moments before the call is not seen.
    const leadMs = deps.recheckSpread?.leadMs(callAt, deps.clock.now()) ?? RECHECK_BEFORE_CALL_MS;
    await deps.clock.sleepUntil(callAt - leadMs);
    const stoppedLate = await stopBeforeCall(await deps.jobs.get(message.tenantId, message.jobId), run, end);
    if (stoppedLate) return stoppedLate;
  }
  // Built and signed before the wait, as of the call's time: at the due millisecond only the call is left.
  const request = requestOf(withTaskBody(job, run), message, keys, Math.max(callAt, deps.clock.now()), {
    ...secretHeaders,
    ...asyncHeaders,
  });
  deps.invoker.plan?.(request, callAt);
  await deps.clock.sleepUntil(callAt);
  if (startBy !== undefined && deps.clock.now() > startBy) {
    // Held up past its key's instant (a busy host): started now, it would crowd the instants after it.
    return { kind: 'waiting', until: deps.clock.now(), reason: 'rate' };
  }
  if (deps.clock.now() + job.timeoutSeconds * 1000 > lease.expiresAt) {
    // Stalled between claim and call (an overloaded host): the lease could run out mid-call and
    // another executor take the run over, calling it twice. Not calling keeps the one-call
    // promise; the run is recovered once this lease expires.
    return { kind: 'leased-elsewhere', leaseExpiresAt: lease.expiresAt };
  }
  if (job.policies.overlap === 'forbid') {
    // Taken at the due time, right before the call, not at claim time: the holder may finish in between.
    const now = deps.clock.now();
    const marker = { scheduledFor: message.scheduledFor, runId: message.runId, until: lease.expiresAt };
    const taken = await deps.jobs.takeInFlight(job.tenantId, job.jobId, marker, now);
    if (!taken.taken) {
      const decision = taken.holder
        ? decideOverlap('forbid', taken.holder, message.scheduledFor, now)
        : { action: 'skip' as const, reason: 'job no longer exists' };
      const reason = decision.action === 'skip' ? decision.reason : 'overlap forbidden: another run is in flight';
      await end({ status: 'SKIPPED', errorType: 'overlap', error: reason });
      return { kind: 'skipped', reason };
    }
  }
  return { kind: 'call', job, request, holdsInFlight: job.policies.overlap === 'forbid' };
}

/**
 * A workflow task with `input: "upstream"` sends the body made when it started (the run carries
 * it) instead of its item's, as JSON.
 */
function withTaskBody(job: Job, run: Run): Job {
  if (run.requestBody === undefined) return job;
  const headers = Object.fromEntries(
    Object.entries(job.target.headers).filter(([name]) => name.toLowerCase() !== 'content-type'),
  );
  return {
    ...job,
    target: { ...job.target, body: run.requestBody, headers: { ...headers, 'content-type': 'application/json' } },
  };
}

/** The task's workflow is gone or deleted (its head read as any job is: coalesced with the batch's reads). */
async function workflowDeleted(deps: ExecuteRunDeps, task: WorkflowTaskJob): Promise<boolean> {
  const head = await deps.jobs.get(task.tenantId, task.workflowId);
  return !head || head.status === 'CANCELLED';
}

/**
 * A starter run (an occurrence of a scheduled workflow, made by the scanner like a job's): at its
 * due time it starts the occurrence's workflow run instead of calling a URL, and ends SUCCEEDED
 * (or SKIPPED under `overlap: "forbid"`), so misfire, pause, the sweep and leases hold for
 * workflows exactly as for jobs. A failed start is a failure before the call: the claim is given
 * back and the message comes back to start it again (the start is idempotent).
 */
async function startWorkflow(
  deps: ExecuteRunDeps,
  message: DispatchMessage,
  head: WorkflowHead,
  run: Run,
  end: (outcome: Omit<RunOutcome, 'completedAt'>) => Promise<void>,
): Promise<Prepared> {
  if (!deps.workflows) throw new Error('a workflow occurrence, but the executor has no workflow-run store');
  await deps.clock.sleepUntil(Math.max(message.scheduledFor, run.availableAt ?? 0));
  const startedAt = deps.clock.now();
  const started = await startScheduledWorkflowRun(deps.workflows, head, message, startedAt);
  if (started.kind === 'skipped') {
    await end({ status: 'SKIPPED', errorType: 'overlap', error: started.reason });
    return { kind: 'skipped', reason: started.reason };
  }
  await end({ status: 'SUCCEEDED', startedAt, durationMs: deps.clock.now() - startedAt });
  return { kind: 'workflow-started', workflowRunId: started.run.workflowRunId };
}

/** An async job's call needs its callback configuration: without it, it is not made. */
function requireAsync(deps: ExecuteRunDeps): AsyncCallDeps {
  if (!deps.async) throw new Error('async job, but the executor has no callback configuration (CALLBACK_BASE_URL)');
  return deps.async;
}

/**
 * The target answered 202: the run becomes an accepted async run (accept-async-run.ts). Recorded
 * with the tries of an outcome (record-outcome.ts): a 202 not recorded would leave the run to
 * its lease, and a second call. An `overlap: "forbid"` job's marker is kept until the max duration
 * (the attempt's end frees it: async-ends.ts).
 */
async function acceptCall(
  deps: ExecuteRunDeps,
  asyncDeps: AsyncCallDeps,
  message: DispatchMessage,
  job: Job,
  run: Run,
  owner: string,
  holdsInFlight: boolean,
  call: Parameters<typeof acceptAsyncRun>[4],
): Promise<ExecuteRunResult> {
  const acceptDeps = {
    store: asyncDeps.store,
    jobs: deps.jobs,
    random: deps.random,
    config: { leaseMarginMs: deps.config.leaseMarginMs, shardCount: asyncDeps.shardCount },
  };
  const acceptance = await withRetries(deps.clock, () =>
    acceptAsyncRun(acceptDeps, message, owner, deps.clock.now(), call),
  );
  if (holdsInFlight && acceptance.kind === 'accepted' && job.async) {
    const until = (run.claimedAt ?? deps.clock.now()) + job.async.maxDurationSeconds * 1000 + deps.config.leaseMarginMs;
    const marker = { scheduledFor: message.scheduledFor, runId: message.runId, until };
    await deps.jobs.takeInFlight(job.tenantId, job.jobId, marker, deps.clock.now()).catch(() => undefined);
  }
  return { kind: 'accepted', run, acceptance };
}

/** A wait before the call longer than this reads the job again (a pause or cancel meanwhile)... */
export const RECHECK_AFTER_WAIT_MS = 1000;
/** ...this long before the call: the read is done before the due time, not on the call's path. */
export const RECHECK_BEFORE_CALL_MS = 500;

/**
 * ...and when many runs of one process wait for the same second, the first thousand read
 * RECHECK_BEFORE_CALL_MS before it, the next thousand a second earlier, up to 5 s: a burst's reads
 * are then all answered before its second, not still coming in after it. On Lambda an invocation
 * holds at most ten runs, so every read stays half a second before; where one process holds a large
 * burst (the local runtime: a 5,000-run precision burst read its jobs for two seconds past the due
 * second, DynamoDB Local answering ~2,500 reads a second), the spread keeps them ahead. What
 * changes after a run's read is not seen by its call, as for every run.
 */
export const RECHECK_SPREAD: ReleaseSpreadOptions = {
  baseLeadMs: RECHECK_BEFORE_CALL_MS,
  readyPerSecond: 1000,
  maxLeadMs: 5000,
};

/**
 * Ends the run without a call when its job is gone or cancelled, when it is not the occurrence of
 * its one-time job, or when the job is paused (unless the run was triggered by hand); undefined
 * when the call may go out.
 */
async function stopBeforeCall(
  job: Job | undefined,
  run: Run,
  end: (outcome: Omit<RunOutcome, 'completedAt'>) => Promise<void>,
): Promise<Exclude<ExecuteRunResult, { kind: 'called' }> | undefined> {
  if (!job || job.status === 'CANCELLED') {
    const reason = job ? 'job was cancelled before the run started' : 'job no longer exists';
    await end({ status: 'CANCELLED', errorType: 'cancelled', error: reason });
    return { kind: 'cancelled' };
  }
  // A workflow task's item has an inert schedule: its runs are the workflow's, never superseded.
  const scheduled = !run.triggered && run.workflowRunId === undefined;
  if (job.schedule?.type === 'once' && scheduled && run.scheduledFor !== job.schedule.at) {
    // Not the job's occurrence: made before a PATCH moved `at`, or by a create that died and was
    // retried with "now" as its `at` (create-job.ts). The job's own occurrence has its own run.
    const reason = 'superseded: the one-time job is due at another time than this run';
    await end({ status: 'SKIPPED', errorType: 'superseded', error: reason });
    return { kind: 'skipped', reason };
  }
  if (job.status === 'PAUSED' && !run.triggered) {
    // A scan that read the job just before it was paused may still have materialized this
    // occurrence; pausing means no scheduled call goes out, so it ends here, visibly.
    await end({ status: 'SKIPPED', errorType: 'paused', error: 'job was paused before the run started' });
    return { kind: 'skipped', reason: 'job was paused' };
  }
  return undefined;
}

/**
 * After the call of a `forbid` job: a final outcome frees the job; a failure that will be retried
 * keeps it until the retry's lease could end, so the retry (the same occurrence) finds its place
 * kept and no other occurrence starts in between. Best effort: a marker not released expires at
 * its `until` (the lease end), and skips nothing after that.
 */
async function settleInFlight(deps: ExecuteRunDeps, job: Job, message: DispatchMessage, outcome: RunOutcome) {
  try {
    if (outcome.nextAttemptAt === undefined) {
      await deps.jobs.releaseInFlight(job.tenantId, job.jobId, message.scheduledFor);
      return;
    }
    const until = outcome.nextAttemptAt + job.timeoutSeconds * 1000 + deps.config.leaseMarginMs;
    const marker = { scheduledFor: message.scheduledFor, runId: message.runId, until };
    await deps.jobs.takeInFlight(job.tenantId, job.jobId, marker, deps.clock.now());
  } catch {
    // The marker expires with the lease (see above).
  }
}
