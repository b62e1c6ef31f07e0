/** The API's representation of jobs and runs: ISO-8601 instants, no storage attributes. */
import type { CallbackState } from './async/callback-state.ts';
import { definitionVersionOf } from './definition-version.ts';
import { isRepresentableInstant } from './fire-plan.ts';
import type { Run, Schedule } from './model.ts';
import type { StoredJob } from './ports.ts';
import { laneOf, type Priority } from './priority.ts';
import { DEFAULT_RETRY_POLICY } from './retry-policy.ts';
import { DEFAULT_SLA_SECONDS, runTiming } from './run-timing.ts';
import { redactedTarget } from './secrets/secret-headers.ts';
import type { SigningSecretInfo } from './tenants/signing-secrets.ts';

/** An instant as ISO-8601; null when absent, or not a representable instant (old data must not break a read). */
export const iso = (ms: number | undefined): string | null =>
  ms === undefined || !isRepresentableInstant(ms) ? null : new Date(ms).toISOString();

export interface RunView {
  runId: string;
  jobId: string;
  scheduledFor: string;
  attempt: number;
  status: Run['status'];
  createdAt: string;
  enqueuedAt: string | null;
  receivedAt: string | null;
  claimedAt: string | null;
  startedAt: string | null;
  completedAt: string | null;
  /** When the attempt was due: its occurrence, or its backoff for a retry (run-timing.ts). */
  dueAt: string;
  dispatchLagMs: number | null;
  startLagMs: number | null;
  slaSeconds: number;
  slaMet: boolean | null;
  httpStatus: number | null;
  durationMs: number | null;
  error: string | null;
  errorType: string | null;
  responseExcerpt: string | null;
  recoveries: number;
  /** Present when the outcome was stored without some of its fields: why (execute-run's record-outcome.ts). */
  outcomeReduced?: string;
  /** The attempt was called as an async job's (core/async/): its callbacks, not its HTTP answer, decide its end. */
  async: boolean;
  /** When the target's 202 (or a first heartbeat) took the work; null for a run no worker took. */
  acceptedAt: string | null;
  /** 0–100 and the message, as the worker's last heartbeat said; null until one said it. */
  progress: number | null;
  progressMessage: string | null;
  heartbeatAt: string | null;
  /** When a silent worker's attempt ends TIMED_OUT (heartbeat_timeout); after the end, the last one it had. */
  heartbeatDeadline: string | null;
  /** When the worker last saved a checkpoint; the checkpoint itself only through GET /v1/runs/{runId}. */
  checkpointAt: string | null;
  cancelRequestedAt: string | null;
  /** What the worker's completion carried, as JSON; null when it carried none. */
  output: unknown;
  workflowRunId: string | null;
  taskKey: string | null;
  /** The lane the run was made in (its job's priority then; a PATCH later does not move it). */
  priority: Priority;
  flowControl?: Run['flowControl'];
  waitedMs?: number;
}

/** A stored JSON text as JSON; null for none, or for text that no longer parses (old data must not break a read). */
function parsedJson(text: string | undefined): unknown {
  if (text === undefined) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * One run as `GET /v1/runs/{runId}` shows it: its view, and the worker's latest checkpoint (any
 * JSON, null when none) — the only run answer that carries the checkpoint itself.
 */
export function runDetailView(run: Run, slaSeconds?: number) {
  return { ...runView(run, slaSeconds), checkpoint: parsedJson(run.checkpointJson) };
}

/** What `GET /v1/callbacks/{token}` answers a worker: its attempt and the occurrence's latest checkpoint. */
export function callbackStateView(state: CallbackState & { runId: string }) {
  return {
    runId: state.runId,
    attempt: state.attempt,
    active: state.active,
    cancelRequested: state.cancelRequested,
    heartbeatDeadline: iso(state.heartbeatDeadline),
    checkpoint: parsedJson(state.checkpoint?.checkpointJson),
    checkpointAt: iso(state.checkpoint?.checkpointAt),
    checkpointAttempt: state.checkpoint?.attempt ?? null,
  };
}

/** A run as the API shows it, with its derived timings judged against `slaSeconds` (the job's). */
export function runView(run: Run, slaSeconds: number = DEFAULT_SLA_SECONDS): RunView {
  const timing = runTiming(run, slaSeconds);
  return {
    runId: run.runId,
    jobId: run.jobId,
    scheduledFor: iso(run.scheduledFor) as string,
    attempt: run.attempt,
    status: run.status,
    createdAt: iso(run.createdAt) as string,
    enqueuedAt: iso(run.enqueuedAt),
    receivedAt: iso(run.receivedAt),
    claimedAt: iso(run.claimedAt),
    startedAt: iso(run.startedAt),
    completedAt: iso(run.completedAt),
    dueAt: iso(timing.dueAt) as string,
    dispatchLagMs: timing.dispatchLagMs,
    startLagMs: timing.startLagMs,
    slaSeconds: timing.slaSeconds,
    slaMet: timing.slaMet,
    httpStatus: run.httpStatus ?? null,
    durationMs: run.durationMs ?? null,
    error: run.error ?? null,
    errorType: run.errorType ?? null,
    responseExcerpt: run.responseExcerpt ?? null,
    recoveries: run.recoveries ?? 0,
    ...(run.outcomeReduced === undefined ? {} : { outcomeReduced: run.outcomeReduced }),
    // Async fields are always present (null on synchronous runs), as the timings are: one shape for every run.
    async: run.async !== undefined,
    acceptedAt: iso(run.acceptedAt),
    progress: run.progress ?? null,
    progressMessage: run.progressMessage ?? null,
    heartbeatAt: iso(run.heartbeatAt),
    // Kept after the end: a heartbeat_timeout run shows the deadline its worker missed.
    heartbeatDeadline: iso(run.heartbeatDeadline),
    checkpointAt: iso(run.checkpointAt),
    cancelRequestedAt: iso(run.cancelRequestedAt),
    output: parsedJson(run.outputJson),
    // A workflow task's run (core/workflows/): its workflow run and task; null on a job's runs.
    workflowRunId: run.workflowRunId ?? null,
    taskKey: run.taskKey ?? null,
    priority: laneOf(run),
    // The key the run's start was limited by, and how long it waited for it (present once it waited).
    ...(run.flowControl === undefined ? {} : { flowControl: run.flowControl }),
    ...(run.waitedMs === undefined ? {} : { waitedMs: run.waitedMs }),
  };
}

/** A schedule as the API shows it: instants as ISO-8601, fields as they were given. */
export function scheduleView(schedule: Schedule) {
  if (schedule.type === 'once') return { type: 'once', at: iso(schedule.at) };
  const bounds = {
    startAt: iso(schedule.startAt),
    ...(schedule.endAt === undefined ? {} : { endAt: iso(schedule.endAt) }),
    ...(schedule.maxRuns === undefined ? {} : { maxRuns: schedule.maxRuns }),
  };
  if (schedule.type === 'interval') return { type: 'interval', everySeconds: schedule.everySeconds, ...bounds };
  return { type: 'cron', expression: schedule.expression, timezone: schedule.timezone, ...bounds };
}

/** A job's retry policy in create-job.json's field names, every field at its effective value. */
export function retryView(job: Pick<StoredJob, 'retry'>) {
  // Creation stores a full policy; the defaults only keep an odd record readable (old data must not break a read).
  const retry = { ...DEFAULT_RETRY_POLICY, ...job.retry };
  return {
    maxAttempts: retry.maxAttempts,
    initialDelaySeconds: retry.initialDelaySeconds,
    maxDelaySeconds: retry.maxDelaySeconds,
    multiplier: retry.multiplier,
    retryOn: retry.retryOn ?? [],
  };
}

/** A job's async settings, every field at its value; null for a synchronous job. */
export function asyncSettingsView(job: Pick<StoredJob, 'async'>) {
  return job.async
    ? {
        heartbeatTimeoutSeconds: job.async.heartbeatTimeoutSeconds,
        maxDurationSeconds: job.async.maxDurationSeconds,
        cancelGraceSeconds: job.async.cancelGraceSeconds,
      }
    : null;
}

/**
 * A job as the API shows it, with a summary of its latest run; `upcoming` (the next occurrences,
 * shown by GET /v1/jobs/{id}) only when given.
 */
export function jobView(job: StoredJob, latestRun?: Run, upcoming?: number[]) {
  return {
    jobId: job.jobId,
    ...(job.name === undefined ? {} : { name: job.name }),
    status: job.status,
    // Secret header values never leave: each shows as "***".
    target: redactedTarget(job.target),
    schedule: scheduleView(job.schedule),
    misfire: job.policies.misfire,
    overlap: job.policies.overlap,
    retry: retryView(job),
    delivery: job.delivery ?? 'at-least-once',
    onFailure: job.onFailureUrl ? { url: job.onFailureUrl } : null,
    timeoutSeconds: job.timeoutSeconds,
    // The settings of an async job (callbacks: core/async/), every field at its value; null for a synchronous job.
    async: asyncSettingsView(job),
    slaSeconds: job.slaSeconds ?? DEFAULT_SLA_SECONDS,
    // Always shown: `normal` is stored as no lane.
    priority: laneOf(job),
    // The key whose limits the job's runs share (core/flow-control/); null when none.
    flowControl: job.flowControl ?? null,
    nextFireAt: iso(job.nextFireAt),
    ...(job.pausedAt === undefined ? {} : { pausedAt: iso(job.pausedAt) }),
    // Out of the due-index: the scanner could not plan or advance it (a new schedule, or pause and resume, clears it).
    ...(job.quarantine === undefined
      ? {}
      : { quarantine: { reason: job.quarantine.reason, at: iso(job.quarantine.at) } }),
    ...(upcoming === undefined ? {} : { upcoming: upcoming.map((at) => iso(at) as string) }),
    // The definition version (definition-version.ts), never the internal write counter.
    version: definitionVersionOf(job),
    createdAt: iso(job.createdAt),
    updatedAt: iso(job.updatedAt),
    latestRun: latestRun
      ? {
          runId: latestRun.runId,
          scheduledFor: iso(latestRun.scheduledFor),
          attempt: latestRun.attempt,
          status: latestRun.status,
          httpStatus: latestRun.httpStatus ?? null,
          completedAt: iso(latestRun.completedAt),
        }
      : null,
  };
}

/** A signing secret as the API shows it: id, prefix and ISO dates, with its value only when just issued. */
export function signingSecretView(info: SigningSecretInfo & { secret?: string }) {
  return {
    secretId: info.secretId,
    prefix: info.prefix,
    createdAt: iso(info.createdAt),
    ...(info.expiresAt === undefined ? {} : { expiresAt: iso(info.expiresAt) }),
    ...(info.secret === undefined ? {} : { secret: info.secret }),
  };
}
