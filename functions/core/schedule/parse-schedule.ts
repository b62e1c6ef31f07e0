/**
 * Turns the API's `schedule` object into a ScheduleSpec, reporting every problem at once.
 *
 * Accepted input (times are zoned ISO-8601 strings, see iso-instant.ts):
 *   { type: 'once', at? }                                   at defaults to now; a past `at` is accepted and
 *                                                           fires as soon as possible (clock skew makes "now"
 *                                                           from a client slightly past)
 *   { type: 'interval', everySeconds, startAt?, endAt?, maxRuns? }   first run at startAt (default now)
 *   { type: 'cron', expression, timezone?, startAt?, endAt?, maxRuns? }  timezone defaults to 'UTC'
 * endAt is inclusive and must be after startAt; unknown fields are rejected so typos are not silently ignored.
 * Every number and instant is bounded (bounds.ts): dates inside the stored calendar range, everySeconds up
 * to ten years, maxRuns up to MAX_RUNS, so no later stage meets a value it cannot represent.
 */
import { MAX_EVERY_SECONDS, MAX_RUNS } from '../bounds.ts';
import { compileCron } from './cron-expression.ts';
import { isoInstantField } from './iso-instant.ts';
import { nextOccurrence } from './occurrences.ts';
import { canonicalTimeZone } from './time-zone.ts';
import type { FieldError, ScheduleSpec } from './types.ts';

const FIELDS = {
  once: ['type', 'at'],
  interval: ['type', 'everySeconds', 'startAt', 'endAt', 'maxRuns'],
  cron: ['type', 'expression', 'timezone', 'startAt', 'endAt', 'maxRuns'],
} as const;
type ScheduleType = keyof typeof FIELDS;

export type ParseScheduleResult = { ok: true; schedule: ScheduleSpec } | { ok: false; errors: FieldError[] };

/** Validates API schedule input against `now` (epoch ms); returns the spec or ALL field errors found. */
export function parseSchedule(input: unknown, now: number): ParseScheduleResult {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, errors: [{ field: 'schedule', reason: 'must be an object' }] };
  }
  const raw = input as Record<string, unknown>;
  const type = raw.type;
  if (!isScheduleType(type)) {
    return { ok: false, errors: [{ field: 'schedule.type', reason: "must be one of 'once', 'interval', 'cron'" }] };
  }
  const errors: FieldError[] = [];
  const fail = (field: string, reason: string) => errors.push({ field: `schedule.${field}`, reason });
  const allowed: readonly string[] = FIELDS[type];
  for (const key of Object.keys(raw)) {
    if (!allowed.includes(key)) fail(key, `is not a field of a ${type} schedule`);
  }

  const instant = (field: string, fallback: number | undefined): number | undefined => {
    const value = raw[field];
    if (value === undefined) return fallback;
    return isoInstantField(value, (reason) => fail(field, reason));
  };
  const positiveInteger = (field: string, required: boolean, max: number): number | undefined => {
    const value = raw[field];
    if (value === undefined) return required ? void fail(field, 'is required') : undefined;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > max) {
      return void fail(field, `must be an integer from 1 to ${max}`);
    }
    return value;
  };

  if (type === 'once') {
    const at = instant('at', now);
    return errors.length === 0 && at !== undefined ? { ok: true, schedule: { type, at } } : { ok: false, errors };
  }

  const startAt = instant('startAt', now);
  const endAt = instant('endAt', undefined);
  const maxRuns = positiveInteger('maxRuns', false, MAX_RUNS);
  if (startAt !== undefined && endAt !== undefined && endAt <= startAt) fail('endAt', 'must be after startAt');
  const bounds = { ...(endAt !== undefined && { endAt }), ...(maxRuns !== undefined && { maxRuns }) };

  if (type === 'interval') {
    const everySeconds = positiveInteger('everySeconds', true, MAX_EVERY_SECONDS);
    if (errors.length > 0 || everySeconds === undefined || startAt === undefined) return { ok: false, errors };
    return { ok: true, schedule: { type, everySeconds, startAt, ...bounds } };
  }

  const expression = cronExpression(raw.expression, fail);
  const timezone = timeZone(raw.timezone, fail);
  if (errors.length > 0 || expression === undefined || timezone === undefined || startAt === undefined) {
    return { ok: false, errors };
  }
  const schedule: ScheduleSpec = { type, expression, timezone, startAt, ...bounds };
  if (nextOccurrence(schedule, startAt, 0) === undefined) {
    fail('expression', endAt === undefined ? 'never fires' : 'never fires between startAt and endAt');
    return { ok: false, errors };
  }
  return { ok: true, schedule };
}

function isScheduleType(value: unknown): value is ScheduleType {
  return typeof value === 'string' && Object.hasOwn(FIELDS, value);
}

function cronExpression(value: unknown, fail: (field: string, reason: string) => void): string | undefined {
  if (value === undefined) return void fail('expression', 'is required');
  if (typeof value !== 'string') return void fail('expression', 'must be a string');
  const compiled = compileCron(value);
  return compiled.ok ? compiled.expression : void fail('expression', compiled.reason);
}

function timeZone(value: unknown, fail: (field: string, reason: string) => void): string | undefined {
  if (value === undefined) return 'UTC';
  if (typeof value !== 'string') return void fail('timezone', 'must be an IANA time zone name string');
  const canonical = canonicalTimeZone(value);
  return canonical ?? void fail('timezone', `unknown time zone '${value}'`);
}
