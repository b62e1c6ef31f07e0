/**
 * What every stage of Chronos can represent and store, in one place. Values from outside (request
 * bodies, query strings, cursors, headers, queue messages, stream images) are checked against
 * these at the edge, so nothing past them reaches the schedule math, DynamoDB's marshaller (which
 * refuses numbers that are not safe integers), `Date` (which throws past ±8.64e15 ms) or the runs
 * table's 13-digit sort keys.
 *
 * The calendar range is deliberately narrower than `Date`'s: 1970 (no negative epoch times, which
 * sort keys cannot order) to the end of 2199 (far beyond any schedule anyone means, and every
 * instant in it is a 13-digit epoch-ms safe integer).
 */
import { FLOW_CONTROL_BOUNDS } from './flow-control/flow-control-settings.ts';
import { MAX_TIMEOUT_SECONDS } from './limits.ts';
import { MAX_ATTEMPTS_LIMIT } from './retry-policy.ts';

/** Earliest instant accepted or stored: 1970-01-01T00:00:00.000Z. */
export const EARLIEST_INSTANT = 0;
/** Latest instant accepted or stored: 2199-12-31T23:59:59.999Z. A schedule has no occurrence after it. */
export const LATEST_INSTANT = Date.UTC(2199, 11, 31, 23, 59, 59, 999);

/** Longest interval between occurrences: ten years. */
export const MAX_EVERY_SECONDS = 315_360_000;
/** Largest `maxRuns`: more runs than an every-second job makes in three years. */
export const MAX_RUNS = 100_000_000;

/** Largest attempt number of a run: the runs table's sort key holds it in three digits. */
export const MAX_ATTEMPT_NUMBER = 999;

/** The reason given for an instant outside [EARLIEST_INSTANT, LATEST_INSTANT]. */
export const INSTANT_RANGE_REASON = 'must be between 1970-01-01T00:00:00Z and 2199-12-31T23:59:59.999Z';

/** True for an epoch-ms safe integer inside the calendar range Chronos stores. */
export function isRepresentableInstant(value: unknown): value is number {
  return isIntegerBetween(value, EARLIEST_INSTANT, LATEST_INSTANT);
}

/** True for a safe integer in [min, max]. */
export function isIntegerBetween(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max;
}

/** A base-10 string of digits as a safe integer in [min, max]; undefined for anything else. */
export function integerFromDigits(text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined || !/^\d{1,16}$/.test(text)) return undefined;
  const value = Number(text);
  return isIntegerBetween(value, min, max) ? value : undefined;
}

/** The range of one numeric request field; `integer` unless said otherwise. */
export interface NumberBound {
  min: number;
  max: number;
  integer: boolean;
}

const integerBetween = (min: number, max: number): NumberBound => ({ min, max, integer: true });

/**
 * Every numeric field of a job a client sends (POST and PATCH), by dotted path, with the range the
 * JSON Schemas in schemas/ declare (a unit test holds the two equal). The core checks them again,
 * so a caller that skips the schema (a test, a script, another entry point) still cannot store a
 * value past them.
 */
export const JOB_NUMBER_BOUNDS = {
  'schedule.everySeconds': integerBetween(1, MAX_EVERY_SECONDS),
  'schedule.maxRuns': integerBetween(1, MAX_RUNS),
  'retry.maxAttempts': integerBetween(1, MAX_ATTEMPTS_LIMIT),
  'retry.initialDelaySeconds': integerBetween(1, 3600),
  'retry.maxDelaySeconds': integerBetween(1, 86_400),
  'retry.multiplier': { min: 1, max: 10, integer: false },
  'retry.retryOn': integerBetween(400, 499),
  timeoutSeconds: integerBetween(1, MAX_TIMEOUT_SECONDS),
  slaSeconds: integerBetween(1, 3600),
  // Checked by parseFlowControl, which names them the same way; listed here so the schema keeps them equal.
  'flowControl.ratePerSecond': { ...FLOW_CONTROL_BOUNDS.ratePerSecond, integer: false },
  'flowControl.parallelism': { ...FLOW_CONTROL_BOUNDS.parallelism, integer: true },
} as const satisfies Record<string, NumberBound>;

export type BoundedField = keyof typeof JOB_NUMBER_BOUNDS;

/** Pushes a problem naming `field` when `value` is outside its bound. */
export function checkBound(field: BoundedField, value: unknown, problems: { field: string; reason: string }[]): void {
  const reason = outOfBoundReason(field, value);
  if (reason !== undefined) problems.push({ field, reason });
}

/** Why `value` is outside the bound of `field`, or undefined when it is inside (or absent). */
export function outOfBoundReason(field: BoundedField, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const { min, max, integer } = JOB_NUMBER_BOUNDS[field] as NumberBound;
  const ok = typeof value === 'number' && Number.isFinite(value) && (!integer || Number.isSafeInteger(value));
  if (ok && value >= min && value <= max) return undefined;
  return `must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`;
}
