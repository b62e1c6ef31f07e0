/**
 * Writes a run's outcome so that it is never lost to the write itself. A run left RUNNING because
 * its outcome could not be stored would be taken over when its lease ends and its target called
 * again; so:
 *  - a write that fails for a transient reason (throttling, a network blip) is tried again, a few
 *    times with backoff, within the invocation;
 *  - an outcome the store refuses as such (too large an item, a value it cannot represent) is
 *    recorded in a reduced form instead: status, error type, HTTP status, timings and retry
 *    decision kept, the response excerpt dropped, the error cut short, and `outcomeReduced` saying
 *    why. That form is small and made of bounded values only, so it is stored whenever the run
 *    can be written at all.
 * Only when even the reduced form cannot be written (the table unreachable throughout) does the
 * error escape: the lease then decides, as for a crashed executor.
 */
import { OutcomeRejectedError } from '../errors.ts';
import type { RunKey } from '../model.ts';
import type { Clock, RunOutcome, RunRepository } from '../ports.ts';
import { truncate, wellFormed } from './target-outcome.ts';

/** Tries of each form, and the backoff between them (ms): about two seconds in all. */
export const OUTCOME_WRITE_TRIES = 4;
const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 3_000;
/** The error kept in a reduced outcome (characters). */
const REDUCED_ERROR_CHARS = 256;

export interface RecordOutcomeDeps {
  runs: Pick<RunRepository, 'complete'>;
  clock: Clock;
}

/** What was written: `recorded` is `complete`'s answer (false: the lease was lost); `reduced` says why, if it was. */
export type RecordedOutcome = { recorded: boolean; reduced?: string };

/**
 * Records `outcome` for the run `owner` holds, whole if it can, reduced otherwise. The reduced form
 * is tried until `leaseExpiresAt` when given (an outage of the table shorter than what is left of
 * the lease loses nothing): until then no one else may take the run over, and after it the write's
 * owner condition makes a late try harmless.
 */
export async function recordOutcome(
  deps: RecordOutcomeDeps,
  key: RunKey,
  owner: string,
  outcome: RunOutcome,
  leaseExpiresAt?: number,
): Promise<RecordedOutcome> {
  let refusal: unknown;
  try {
    return { recorded: await withRetries(deps.clock, () => deps.runs.complete(key, owner, outcome)) };
  } catch (error) {
    refusal = error;
  }
  const reduced = reducedOutcome(outcome, reasonOf(refusal));
  const recorded = await withRetries(deps.clock, () => deps.runs.complete(key, owner, reduced), leaseExpiresAt);
  return { recorded, reduced: reduced.outcomeReduced as string };
}

/** The outcome cut to what is always storable, with the reason it was cut. */
export function reducedOutcome(outcome: RunOutcome, reason: string): RunOutcome {
  const safe = (n: number | undefined) => (n !== undefined && Number.isSafeInteger(n) ? n : undefined);
  const fields: RunOutcome = {
    status: outcome.status,
    completedAt: safe(outcome.completedAt) ?? 0,
    outcomeReduced: truncate(wellFormed(reason), REDUCED_ERROR_CHARS),
  };
  const optional = {
    errorType: outcome.errorType,
    error: typeof outcome.error === 'string' ? truncate(wellFormed(outcome.error), REDUCED_ERROR_CHARS) : undefined,
    httpStatus: safe(outcome.httpStatus),
    startedAt: safe(outcome.startedAt),
    durationMs: safe(outcome.durationMs),
    retryAfterSeconds: safe(outcome.retryAfterSeconds),
    nextAttemptAt: safe(outcome.nextAttemptAt),
  };
  for (const [field, value] of Object.entries(optional)) {
    if (value !== undefined) Object.assign(fields, { [field]: value });
  }
  return fields;
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `the full outcome could not be stored: ${message}`;
}

/**
 * Runs `write`, again after a backoff while it fails transiently: OUTCOME_WRITE_TRIES times, or
 * for as long as the next try still starts before `deadline`. A refusal of the outcome ends the
 * tries at once. Also the executor's record of an async job's 202 (execute-run.ts).
 */
export async function withRetries<T>(clock: Clock, write: () => Promise<T>, deadline = 0): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      const backoff = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 3 ** (attempt - 1));
      const next = clock.now() + backoff;
      if (error instanceof OutcomeRejectedError || (attempt >= OUTCOME_WRITE_TRIES && next >= deadline)) throw error;
      await clock.sleepUntil(next);
    }
  }
}
