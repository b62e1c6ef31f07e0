/**
 * The form's text turned into the API's request bodies. Only what the browser can know for sure is
 * checked here (the body is JSON, a date-time is one); every other rule is the API's, whose
 * answer names the field (shown next to it).
 */
import type { CreateJob, components, FlowControlSettings, UpdateJob } from '@chronos/client';
// The file '@chronos/client' is aliased to in the build, named by path: the form's pure tests run
// in Node, where the package name resolves to the installed workspace link, not this checkout.
import { FLOW_CONTROL_BOUNDS } from '../../../../client/src/lanes.ts';
import { INTERVAL_UNITS, type JobFormValues } from './values.ts';
import { wallTimeToInstant } from './zones.ts';

/** Problems found before any call, dotted field (as the API names it) → reason. */
export type FormErrors = Record<string, string>;

export type AsyncSettings = components['schemas']['AsyncSettings'];
/** POST /v1/jobs's body with the job's `async` settings (issue 20; the same as create-job.json's once it has them). */
export type CreateJobBody = CreateJob & { async?: AsyncSettings };

type Target = CreateJob['target'];
type Schedule = CreateJob['schedule'];

/** A number input's text: empty → not sent; anything else as a number for the API to judge. */
function numberOf(text: string): number | undefined {
  const trimmed = text.trim();
  return trimmed === '' ? undefined : Number(trimmed);
}

/** Drops the undefined fields, so a request carries only what was filled in. */
function defined<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}

function instantOf(values: JobFormValues, field: 'at' | 'startAt' | 'endAt', errors: FormErrors) {
  const text = values[field].trim();
  if (!text) return undefined;
  const instant = wallTimeToInstant(text, values.timezone);
  if (!instant) errors[`schedule.${field}`] = 'is not a complete date and time';
  return instant;
}

export function buildSchedule(values: JobFormValues, errors: FormErrors): Schedule {
  if (values.scheduleType === 'once') return defined({ type: 'once', at: instantOf(values, 'at', errors) });
  const limits = {
    startAt: instantOf(values, 'startAt', errors),
    endAt: instantOf(values, 'endAt', errors),
    maxRuns: numberOf(values.maxRuns),
  };
  if (values.scheduleType === 'interval') {
    const count = numberOf(values.everyCount);
    const everySeconds = count === undefined ? undefined : count * INTERVAL_UNITS[values.everyUnit];
    return defined({ type: 'interval', everySeconds, ...limits });
  }
  return defined({ type: 'cron', expression: values.expression.trim(), timezone: values.timezone, ...limits });
}

/** The schedule, or undefined while it is too incomplete to ask the server about. */
export function previewableSchedule(values: JobFormValues): Schedule | undefined {
  if (values.scheduleType === 'interval' && !values.everyCount.trim()) return undefined;
  if (values.scheduleType === 'cron' && !values.expression.trim()) return undefined;
  const errors: FormErrors = {};
  const schedule = buildSchedule(values, errors);
  return Object.keys(errors).length === 0 ? schedule : undefined;
}

function headersOf(rows: { name: string; value: string }[]): Record<string, string> | undefined {
  const named = rows.filter((row) => row.name.trim() !== '');
  return named.length === 0 ? undefined : Object.fromEntries(named.map((row) => [row.name.trim(), row.value]));
}

/**
 * The target. `keepStoredSecrets`: secret headers the job already has and the user did not type
 * over are left out (their values are never shown, so the form cannot send them back).
 */
export function buildTarget(values: JobFormValues, errors: FormErrors): Target {
  let body: unknown;
  if (values.body.trim() !== '') {
    try {
      body = JSON.parse(values.body);
    } catch (error) {
      errors['target.body'] = `is not valid JSON (${error instanceof Error ? error.message : String(error)})`;
    }
  }
  const secrets = values.secretHeaders.filter((row) => !row.stored || row.value !== '');
  return defined({
    url: values.url.trim(),
    method: values.method,
    headers: headersOf(values.headers),
    secretHeaders: headersOf(secrets),
    body,
  });
}

function retryOf(values: JobFormValues): CreateJob['retry'] {
  const retryOn = values.retryOn.trim()
    ? values.retryOn
        .split(',')
        .map((status) => status.trim())
        .filter(Boolean)
        .map(Number)
    : undefined;
  const retry = defined({
    maxAttempts: numberOf(values.retryMaxAttempts),
    initialDelaySeconds: numberOf(values.retryInitialDelaySeconds),
    maxDelaySeconds: numberOf(values.retryMaxDelaySeconds),
    multiplier: numberOf(values.retryMultiplier),
    retryOn,
  });
  return Object.keys(retry).length === 0 ? undefined : retry;
}

/** The `async` field: every setting filled in (an empty one takes the API's default), or undefined for a synchronous job. */
function asyncOf(values: JobFormValues): AsyncSettings | undefined {
  if (!values.asyncEnabled) return undefined;
  return defined({
    heartbeatTimeoutSeconds: numberOf(values.asyncHeartbeatTimeoutSeconds),
    maxDurationSeconds: numberOf(values.asyncMaxDurationSeconds),
    cancelGraceSeconds: numberOf(values.asyncCancelGraceSeconds),
  });
}

const { keyLength, ratePerSecond, parallelism } = FLOW_CONTROL_BOUNDS;

/**
 * `flowControl` from its three inputs, checked against the contract's bounds (the API checks them
 * again and names the same fields): undefined when all three are empty.
 */
export function flowControlOf(values: JobFormValues, errors: FormErrors): FlowControlSettings | undefined {
  const key = values.flowKey.trim();
  const rate = numberOf(values.flowRate);
  const slots = numberOf(values.flowParallelism);
  if (key === '' && rate === undefined && slots === undefined) return undefined;
  const length = [...key].length;
  if (length < keyLength.min || length > keyLength.max)
    errors['flowControl.key'] =
      length === 0 ? 'is needed to use flow control' : `must be ${keyLength.min} to ${keyLength.max} characters`;
  if (rate !== undefined && !(rate >= ratePerSecond.min && rate <= ratePerSecond.max))
    errors['flowControl.ratePerSecond'] = `must be a number from ${ratePerSecond.min} to ${ratePerSecond.max}`;
  if (slots !== undefined && !(Number.isInteger(slots) && slots >= parallelism.min && slots <= parallelism.max))
    errors['flowControl.parallelism'] = `must be a whole number from ${parallelism.min} to ${parallelism.max}`;
  if (rate === undefined && slots === undefined)
    errors['flowControl.key'] ??= 'needs a limit: a rate, a parallelism or both';
  return defined({ key, ratePerSecond: rate, parallelism: slots });
}

/** POST /v1/jobs's body, or the problems that keep the form from sending it. */
export function buildCreateJob(values: JobFormValues): { body?: CreateJobBody; errors: FormErrors } {
  const errors: FormErrors = {};
  const body: CreateJobBody = defined({
    name: values.name.trim() || undefined,
    target: buildTarget(values, errors),
    schedule: buildSchedule(values, errors),
    misfire: values.misfire,
    overlap: values.overlap,
    retry: retryOf(values),
    delivery: values.delivery,
    onFailure: values.onFailureUrl.trim() ? { url: values.onFailureUrl.trim() } : undefined,
    timeoutSeconds: numberOf(values.timeoutSeconds),
    slaSeconds: numberOf(values.slaSeconds),
    async: asyncOf(values),
    // `normal` is the API's default: sent only when another lane is chosen.
    priority: values.priority === 'normal' ? undefined : values.priority,
    flowControl: flowControlOf(values, errors),
  });
  return Object.keys(errors).length === 0 ? { body, errors } : { errors };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * PATCH /v1/jobs/{id}'s body: only the parts that differ from the job as loaded (`initial`), since
 * a new schedule reschedules the job and a target is replaced whole. A changed target must carry
 * every secret header again: a stored one not typed over is an error at its row.
 */
export function buildUpdateJob(
  initial: JobFormValues,
  values: JobFormValues,
): { body?: UpdateJob; errors: FormErrors; unchanged?: true } {
  const errors: FormErrors = {};
  const ignored: FormErrors = {};
  // The target's problems count only when it is sent: a job whose body is text the API took as it
  // is (not JSON) can still be renamed or rescheduled.
  const targetErrors: FormErrors = {};
  const target = buildTarget(values, targetErrors);
  const schedule = buildSchedule(values, errors);
  const body: UpdateJob = {};
  if (values.name.trim() !== initial.name.trim()) body.name = values.name.trim();
  const targetChanged =
    !same(target, buildTarget(initial, ignored)) ||
    // Text that is not JSON builds no body: only the text tells whether it was edited.
    (values.body !== initial.body && 'target.body' in targetErrors) ||
    values.secretHeaders.length !== initial.secretHeaders.length ||
    values.secretHeaders.some((row, index) => row.name !== initial.secretHeaders[index]?.name);
  if (targetChanged) {
    // A body left as loaded that is not JSON goes back as the text it is, not as an error.
    if (values.body === initial.body && targetErrors['target.body']) {
      delete targetErrors['target.body'];
      target.body = initial.body;
    }
    Object.assign(errors, targetErrors);
    body.target = target;
    for (const row of values.secretHeaders) {
      if (row.stored && row.value === '') {
        errors[`target.secretHeaders.${row.name}`] =
          'needs its value again: a changed target is saved whole, and stored secret values are never shown';
      }
    }
  }
  if (!same(schedule, buildSchedule(initial, ignored))) body.schedule = schedule;
  if (values.misfire !== initial.misfire) body.misfire = values.misfire;
  if (values.overlap !== initial.overlap) body.overlap = values.overlap;
  for (const field of ['timeoutSeconds', 'slaSeconds'] as const) {
    if (values[field] === initial[field]) continue;
    const value = numberOf(values[field]);
    // A job always has both: an emptied field is a change the API cannot make, not "nothing changed".
    if (value === undefined) errors[field] = 'needs a value: a job always has one';
    else body[field] = value;
  }
  if (values.delivery !== initial.delivery) body.delivery = values.delivery;
  // A PATCHed retry policy replaces the whole policy: send every field the form shows (every field
  // emptied is `{}`, the defaults, as a field left out takes its default).
  if (!same(retryOf(values), retryOf(initial))) body.retry = retryOf(values) ?? {};
  if (values.onFailureUrl.trim() !== initial.onFailureUrl.trim()) {
    body.onFailure = values.onFailureUrl.trim() ? { url: values.onFailureUrl.trim() } : null;
  }
  if (values.priority !== initial.priority) body.priority = values.priority;
  const flowControl = flowControlOf(values, errors);
  // All three emptied on a job that had flow control: null takes it away (as `onFailure`).
  if (!same(flowControl, flowControlOf(initial, ignored))) body.flowControl = flowControl ?? null;
  if (Object.keys(errors).length > 0) return { errors };
  const sent = defined(body);
  return Object.keys(sent).length === 0 ? { errors, unchanged: true } : { body: sent, errors };
}
