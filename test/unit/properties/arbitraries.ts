/**
 * Generators over the whole bounded domain of bounds.ts, shared by the property tests: instants of
 * 1970 … 2199 biased towards the ends and the 12-to-13-digit change of epoch ms (2001-09-09), and
 * schedules of every type with periods, run caps, cron expressions and time zones up to their limits.
 */
import fc from 'fast-check';
import { EARLIEST_INSTANT, LATEST_INSTANT, MAX_EVERY_SECONDS, MAX_RUNS } from '#core/bounds';
import { compileCron } from '#core/schedule/cron-expression';
import { canonicalTimeZone } from '#core/schedule/time-zone';
import type { ScheduleSpec } from '#core/schedule/types';

const DAY_MS = 86_400_000;
/** The first 13-digit epoch ms: 2001-09-09T01:46:40Z. */
export const FIRST_13_DIGIT_MS = 1_000_000_000_000;

/** Any stored instant, often close to an end of the range or to the digit-count change. */
export const storedInstant = fc.oneof(
  fc.integer({ min: EARLIEST_INSTANT, max: LATEST_INSTANT }),
  fc.integer({ min: EARLIEST_INSTANT, max: EARLIEST_INSTANT + 30 * DAY_MS }),
  fc.integer({ min: LATEST_INSTANT - 30 * DAY_MS, max: LATEST_INSTANT }),
  fc.integer({ min: FIRST_13_DIGIT_MS - DAY_MS, max: FIRST_13_DIGIT_MS + DAY_MS }),
  fc.constantFrom(EARLIEST_INSTANT, LATEST_INSTANT, FIRST_13_DIGIT_MS - 1, FIRST_13_DIGIT_MS),
);

/** Periods from one second to ten years, often at either end. */
export const everySeconds = fc.oneof(
  fc.integer({ min: 1, max: MAX_EVERY_SECONDS }),
  fc.integer({ min: 1, max: 3600 }),
  fc.constantFrom(1, 60, 86_400, MAX_EVERY_SECONDS - 1, MAX_EVERY_SECONDS),
);

export const maxRuns = fc.option(
  fc.oneof(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: MAX_RUNS }), fc.constant(MAX_RUNS)),
  { nil: undefined },
);

/**
 * Zones with every kind of offset history: none, ordinary DST, 30-minute DST (Lord Howe), quarter-hour
 * offsets (Kathmandu, Chatham), the extreme +14 and -11, a day skipped at the date line (Apia, 2011),
 * DST abolished (Sao Paulo), and Casablanca's DST suspended every Ramadan. Spelled as the runtime
 * canonicalizes them (its ICU may say `Asia/Katmandu`), as a stored schedule holds them.
 */
const ZONE_NAMES = [
  'UTC',
  'America/New_York',
  'Europe/London',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'Pacific/Chatham',
  'Pacific/Kiritimati',
  'Pacific/Pago_Pago',
  'Pacific/Apia',
  'America/Sao_Paulo',
  'Africa/Casablanca',
];
export const TIME_ZONES = ZONE_NAMES.map((name) => canonicalTimeZone(name) as string);

const minuteField = fc.oneof(
  fc.constant('*'),
  fc.integer({ min: 0, max: 59 }).map(String),
  fc.integer({ min: 1, max: 30 }).map((n) => `*/${n}`),
  fc.uniqueArray(fc.integer({ min: 0, max: 59 }), { minLength: 2, maxLength: 4 }).map((xs) => xs.join(',')),
);
const hourField = fc.oneof(
  fc.constant('*'),
  fc.integer({ min: 0, max: 23 }).map(String),
  fc.integer({ min: 0, max: 22 }).map((h) => `${h}-${h + 1}`),
  fc.integer({ min: 1, max: 12 }).map((n) => `*/${n}`),
);
const dayOfMonthField = fc.oneof(fc.constant('*'), fc.integer({ min: 1, max: 31 }).map(String));
const monthField = fc.oneof(fc.constant('*'), fc.integer({ min: 1, max: 12 }).map(String));
const dayOfWeekField = fc.oneof(fc.constant('*'), fc.integer({ min: 0, max: 6 }).map(String));

/** Cron expressions Chronos accepts: 5 fields, 6 with seconds, and the `@` macros. */
export const cronExpression = fc
  .oneof(
    { weight: 6, arbitrary: fc.tuple(minuteField, hourField, dayOfMonthField, monthField, dayOfWeekField) },
    {
      weight: 1,
      arbitrary: fc.tuple(
        fc.integer({ min: 0, max: 59 }).map(String),
        minuteField,
        hourField,
        dayOfMonthField,
        monthField,
        dayOfWeekField,
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom(['@hourly'], ['@daily'], ['@weekly'], ['@monthly'], ['@yearly']) },
    // Rare and sparse: only on 29 February, or on the 31st of months that have one.
    { weight: 1, arbitrary: fc.constantFrom(['0', '12', '29', '2', '*'], ['30', '2', '31', '*', '*']) },
  )
  .map((fields) => fields.join(' '))
  .filter((expression) => compileCron(expression).ok);

const bounded = <T extends { startAt: number }>(spec: T, endAt: number | undefined, runs: number | undefined) => ({
  ...spec,
  ...(endAt !== undefined && endAt > spec.startAt ? { endAt } : {}),
  ...(runs !== undefined ? { maxRuns: runs } : {}),
});

export const onceSchedule = storedInstant.map((at): ScheduleSpec => ({ type: 'once', at }));

export const intervalSchedule = fc
  .tuple(everySeconds, storedInstant, fc.option(storedInstant, { nil: undefined }), maxRuns)
  .map(
    ([every, startAt, endAt, runs]): ScheduleSpec =>
      bounded({ type: 'interval' as const, everySeconds: every, startAt }, endAt, runs),
  );

export const cronSchedule = fc
  .tuple(
    cronExpression,
    fc.constantFrom(...TIME_ZONES),
    storedInstant,
    fc.option(storedInstant, { nil: undefined }),
    maxRuns,
  )
  .map(
    ([expression, timezone, startAt, endAt, runs]): ScheduleSpec =>
      bounded({ type: 'cron' as const, expression, timezone, startAt }, endAt, runs),
  );

export const anySchedule = fc.oneof(onceSchedule, intervalSchedule, cronSchedule);
