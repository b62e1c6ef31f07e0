/**
 * Which failures belong to one job (or one record) and which to the machinery around it. A job's
 * own failure repeats on every try with the same data, so retrying it only holds up the others:
 * the scanner quarantines such a job, and the stream and queue consumers set such a record aside.
 * Anything else (throttling, a network error, a service fault) may pass, so it is tried again
 * later and never quarantines anything.
 */
import { UnplannableJobError } from '../fire-plan.ts';

/**
 * Errors whose name says the request itself was refused as invalid, whatever adapter raised it:
 * DynamoDB's ValidationException (an item or key it cannot store) and SerializationException.
 */
const INVALID_REQUEST_NAMES: ReadonlySet<string> = new Set(['ValidationException', 'SerializationException']);

/**
 * True when `error` is the job's (or the record's) own: planning refused it, a value could not
 * be represented (RangeError: an invalid date, a number out of range), or the store refused the
 * request as invalid. A DynamoDB marshalling error (a number beyond the safe-integer range) is
 * one too: the SDK raises it before sending, as a plain Error naming Number.MAX_SAFE_INTEGER or a
 * special numeric value.
 */
export function isOwnFailure(error: unknown): boolean {
  if (error instanceof UnplannableJobError || error instanceof RangeError) return true;
  if (!(error instanceof Error)) return false;
  if (INVALID_REQUEST_NAMES.has(error.name)) return true;
  return /MAX_SAFE_INTEGER|Special numeric value|can't be converted to (Number|BigInt)/.test(error.message);
}

/** A short, bounded reason to store on a job or log for a record. */
export function reasonOf(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > 500 ? `${text.slice(0, 497)}...` : text;
}
