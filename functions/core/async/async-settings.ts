/**
 * The job field `async`: a job whose target takes its work with 202 and reports back through
 * callbacks (docs: issue 20). Three integers bound the attempt the target took:
 *
 *   heartbeatTimeoutSeconds  how long a silent worker is trusted (5–3600, default 60)
 *   maxDurationSeconds       the attempt's whole life from its call, heartbeats or not (5–604800, default 3600)
 *   cancelGraceSeconds       how long a cancelled worker may still complete (0–3600, default 30)
 *
 * `maxDurationSeconds` must be at least the (effective) `heartbeatTimeoutSeconds`: a heartbeat
 * deadline never lies past the max-duration deadline (heartbeat-decision.ts clamps it), so a
 * shorter max duration would make the heartbeat timeout meaningless, and is most likely a
 * mistake (minutes for seconds). schemas/async-settings.json states the same bounds; this module
 * checks them again, so a caller that skips the schema cannot store a value past them.
 */
import type { FieldProblem } from '../errors.ts';

export interface AsyncSettings {
  heartbeatTimeoutSeconds: number;
  maxDurationSeconds: number;
  cancelGraceSeconds: number;
}

/** Seven days: the longest an async attempt may live. */
export const MAX_ASYNC_DURATION_SECONDS = 604_800;

/** The range of each field, the same as schemas/async-settings.json (a unit test holds the two equal). */
export const ASYNC_SETTING_BOUNDS = {
  heartbeatTimeoutSeconds: { min: 5, max: 3600 },
  maxDurationSeconds: { min: 5, max: MAX_ASYNC_DURATION_SECONDS },
  cancelGraceSeconds: { min: 0, max: 3600 },
} as const satisfies Record<keyof AsyncSettings, { min: number; max: number }>;

export const DEFAULT_ASYNC_SETTINGS: Readonly<AsyncSettings> = {
  heartbeatTimeoutSeconds: 60,
  maxDurationSeconds: 3600,
  cancelGraceSeconds: 30,
};

const FIELDS = Object.keys(ASYNC_SETTING_BOUNDS) as (keyof AsyncSettings)[];

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Reads the `async` field of a job request (`input` as sent, any value), with the defaults
 * applied. Pushes one problem per bad field, named `async.<field>` (`async` for a value that is
 * not an object), and then returns undefined. Never throws.
 */
export function parseAsyncSettings(
  input: unknown,
  problems: FieldProblem[],
  field = 'async',
): AsyncSettings | undefined {
  if (!isPlainObject(input)) {
    problems.push({ field, reason: 'must be an object' });
    return undefined;
  }
  const before = problems.length;
  for (const name of Object.keys(input)) {
    if (!(FIELDS as string[]).includes(name))
      problems.push({ field: `${field}.${name}`, reason: 'is not an allowed field' });
  }
  const settings = { ...DEFAULT_ASYNC_SETTINGS };
  for (const name of FIELDS) {
    const value = input[name];
    if (value === undefined) continue;
    const { min, max } = ASYNC_SETTING_BOUNDS[name];
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max)
      settings[name] = value;
    else problems.push({ field: `${field}.${name}`, reason: `must be an integer from ${min} to ${max}` });
  }
  if (problems.length > before) return undefined;
  if (settings.maxDurationSeconds < settings.heartbeatTimeoutSeconds) {
    problems.push({
      field: `${field}.maxDurationSeconds`,
      reason: `must be at least ${field}.heartbeatTimeoutSeconds (${settings.heartbeatTimeoutSeconds})`,
    });
    return undefined;
  }
  return settings;
}
