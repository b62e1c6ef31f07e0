/**
 * Running a job now, once, outside its schedule (POST /v1/jobs/{id}/trigger). The job itself is
 * not written: `nextFireAt`, `occurrenceCount` and the schedule stay as they are.
 *
 * The run is an ordinary run (attempt 1) of its own occurrence time, `scheduledFor` = now, so it
 * goes through the same executor, history and Idempotency-Key (`<jobId>:<scheduledFor>`) as any
 * other. Run ids derive from that time, so it must never be an instant the schedule fires at
 * (the scheduled run would be swallowed, or swallow the trigger): such an instant moves on by a
 * millisecond, as does one another trigger already took.
 *
 * A client retrying a trigger sends the same `Idempotency-Key` header: the key is bound (per job,
 * for 24 h) to the occurrence time of the first request, so a retry finds the same run instead of
 * making another call. The run records its key: two requests with different keys that bound the
 * same millisecond never share it, the second moves on (and its key with it). Without the header
 * every request is a new run.
 *
 * Every trigger takes a token from the tenant's trigger bucket before it writes anything (a
 * replay with its Idempotency-Key too: it is a request to create), so a job that triggers itself
 * through its own call is held to `triggersPerSecond`. A PAUSED job is not triggered (409): pause
 * stops such a loop at its next turn. A triggered run created before the pause, and its retries,
 * still run (they carry the trigger mark); each turn of a loop needs a new trigger, which is refused.
 */
import { ConflictError, NotFoundError } from '../errors.ts';
import type { Run } from '../model.ts';
import type { JobRepository, RunDispatcher, RunRepository } from '../ports.ts';
import { dispatchRequestOf, sendRuns } from '../runs/send-runs.ts';
import { occurrencesBetween, type ScheduleSpec } from '../schedule/index.ts';
import type { RunCreationMeter } from '../tenants/run-creation-meter.ts';
import { newRun } from './new-run.ts';

/** How long an Idempotency-Key keeps pointing at its trigger. */
export const TRIGGER_KEY_TTL_SECONDS = 24 * 3600;

/** Instants tried before giving up (409): a burst of triggers in one millisecond takes one each. */
const COLLISION_ATTEMPTS = 20;

export interface TriggerJobDeps {
  jobs: JobRepository;
  runs: RunRepository;
  dispatcher: RunDispatcher;
  config: { retentionDays: number };
  /** The tenant's trigger bucket (the API always passes it). */
  meter?: RunCreationMeter;
}

/** `at`, or the first millisecond after it that is not a slot of `schedule`. */
export function offSchedule(schedule: ScheduleSpec, at: number): number {
  let instant = at;
  while (occurrencesBetween(schedule, instant, instant, 0, 1).length > 0) instant++;
  return instant;
}

/**
 * Creates and enqueues (delay 0) one extra run of the job. `replayed` is true when an earlier
 * request with the same idempotency key had already created it (nothing new is called).
 */
export async function triggerJob(
  deps: TriggerJobDeps,
  tenantId: string,
  jobId: string,
  now: number,
  idempotencyKey?: string,
): Promise<{ run: Run; replayed: boolean }> {
  const job = await deps.jobs.get(tenantId, jobId);
  if (!job) throw new NotFoundError(`job ${jobId}`);
  if (job.status === 'CANCELLED') throw new ConflictError(`job ${jobId} is CANCELLED`);
  if (job.schedule.type === 'once' && (job.status === 'ACTIVE' || job.status === 'PAUSED')) {
    // Its single run decides the job's status, paused or not; PATCH schedule.at to run it sooner.
    throw new ConflictError(`job ${jobId} is a one-time job that has not run yet; change its schedule.at instead`);
  }
  if (job.status === 'PAUSED') throw new ConflictError(`job ${jobId} is PAUSED; resume it first`);
  await deps.meter?.take(1);

  const expiresAt = Math.floor(now / 1000) + TRIGGER_KEY_TTL_SECONDS;
  let scheduledFor = offSchedule(job.schedule, now);
  if (idempotencyKey !== undefined) {
    scheduledFor = await deps.runs.bindTriggerKey(job, idempotencyKey, scheduledFor, now, expiresAt);
  }
  for (let attempt = 0; attempt < COLLISION_ATTEMPTS; attempt++) {
    const run: Run & { expiresAt: number } = {
      ...newRun(job, scheduledFor, 1, now, deps.config.retentionDays),
      triggered: true,
      ...(idempotencyKey === undefined ? {} : { triggerKey: idempotencyKey }),
    };
    const result = await deps.runs.createIfAbsent(run);
    if (result.created) {
      await enqueue(deps.dispatcher, run);
      return { run, replayed: false };
    }
    if (idempotencyKey !== undefined && result.existing.triggerKey === idempotencyKey) {
      // The first request may have died between creating and sending: a duplicate message is harmless.
      if (result.existing.status === 'QUEUED') await enqueue(deps.dispatcher, result.existing);
      return { run: result.existing, replayed: true };
    }
    // Another trigger (another key, or none) took this instant first: move on, and move the key
    // with it, conditionally, so that a retry of this request racing with it lands on the same run.
    const next = offSchedule(job.schedule, scheduledFor + 1);
    scheduledFor =
      idempotencyKey === undefined
        ? next
        : await deps.runs.bindTriggerKey(job, idempotencyKey, next, now, expiresAt, scheduledFor);
  }
  throw new ConflictError(`job ${jobId} is being triggered too often; retry`);
}

async function enqueue(dispatcher: RunDispatcher, run: Run): Promise<void> {
  await sendRuns(dispatcher, [dispatchRequestOf(run, run.createdAt)]);
}
