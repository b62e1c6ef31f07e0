/**
 * Turns a create-job request body into domain values. The JSON Schema (schemas/create-job.json)
 * has already checked shapes and types; this adds the checks a schema cannot express (real URLs,
 * real instants, valid cron and time zones, header safety) and applies defaults.
 */
import { parseAsyncSettings } from './async/async-settings.ts';
import { checkBound, outOfBoundReason } from './bounds.ts';
import { type FieldProblem, ValidationError } from './errors.ts';
import { parseFlowControl } from './flow-control/flow-control-settings.ts';
import { checkHeaders } from './header-rules.ts';
import { DEFAULT_TIMEOUT_SECONDS } from './limits.ts';
import { DEFAULT_POLICIES, type Delivery, type HttpMethod, type Job, type JobPolicies, type Target } from './model.ts';
import { isPriority, PRIORITIES, type Priority } from './priority.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.ts';
import { parseSchedule } from './schedule/index.ts';
import { parseSecretHeaders } from './secrets/secret-header-input.ts';
import { checkTargetUrl, type OutboundRules, STRICT_OUTBOUND_RULES } from './url-guard.ts';

export interface CreateJobInput {
  name?: string;
  target: {
    url: string;
    method?: HttpMethod;
    headers?: Record<string, string>;
    /** Sealed before storage, never shown again (secret-headers.ts). */
    secretHeaders?: Record<string, string>;
    body?: unknown;
  };
  schedule: Record<string, unknown>;
  misfire?: JobPolicies['misfire'];
  overlap?: JobPolicies['overlap'];
  retry?: Partial<RetryPolicy>;
  delivery?: Delivery;
  onFailure?: { url: string };
  timeoutSeconds?: number;
  slaSeconds?: number;
  /** Calls answered 202 are taken as async work, reported back through callbacks (core/async/). */
  async?: unknown;
  /** The runs' lane (core/priority.ts): `high`, `normal` (default) or `low`. */
  priority?: unknown;
  /** The key whose limits this job's runs share with every run of the tenant naming it (core/flow-control/). */
  flowControl?: unknown;
}

/** What a create request decides about a job; the rest (ids, status, counters) the system sets. */
export type NewJobFields = Pick<
  Job,
  | 'name'
  | 'target'
  | 'schedule'
  | 'policies'
  | 'retry'
  | 'delivery'
  | 'onFailureUrl'
  | 'timeoutSeconds'
  | 'slaSeconds'
  | 'async'
  | 'priority'
  | 'flowControl'
>;

/**
 * Validates a target; pushes every problem found. The URL must be one Chronos may call (url-guard.ts:
 * literal addresses and reserved names are refused here, names that resolve somewhere forbidden at
 * call time) and the headers must pass header-rules.ts.
 */
export function parseTarget(
  input: CreateJobInput['target'],
  problems: FieldProblem[],
  rules: OutboundRules = STRICT_OUTBOUND_RULES,
): Target {
  const url = checkTargetUrl(input.url, rules);
  if (!url.allowed) problems.push({ field: 'target.url', reason: url.reason });
  const headers = checkHeaders(input.headers ?? {}, problems);
  let body: string | undefined;
  if (typeof input.body === 'string') body = input.body;
  else if (input.body !== undefined) {
    body = JSON.stringify(input.body);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
      headers['content-type'] = 'application/json';
  }
  return { url: input.url, method: input.method ?? 'POST', headers, ...(body === undefined ? {} : { body }) };
}

/** Fills the retry policy's defaults and checks what the schema cannot (delays in order), and its bounds again. */
export function parseRetry(input: Partial<RetryPolicy> | undefined, problems: FieldProblem[]): RetryPolicy {
  const retry = { ...DEFAULT_RETRY_POLICY, ...input };
  checkBound('retry.maxAttempts', input?.maxAttempts, problems);
  checkBound('retry.initialDelaySeconds', input?.initialDelaySeconds, problems);
  checkBound('retry.maxDelaySeconds', input?.maxDelaySeconds, problems);
  checkBound('retry.multiplier', input?.multiplier, problems);
  if (retry.initialDelaySeconds > retry.maxDelaySeconds) {
    problems.push({ field: 'retry.initialDelaySeconds', reason: 'must not exceed retry.maxDelaySeconds' });
  }
  if (retry.retryOn?.some((status) => status === 429 || outOfBoundReason('retry.retryOn', status) !== undefined)) {
    problems.push({ field: 'retry.retryOn', reason: 'lists 4xx statuses other than 429 (which is always retried)' });
  }
  return retry;
}

/**
 * Reads a `priority` (the schema has checked it too: this is the handler's own check, for any
 * value); pushes a problem naming `field` for anything but a lane. Undefined for absent or
 * invalid; a valid one as given, `normal` included (the caller decides what to store).
 */
export function parsePriority(value: unknown, field: string, problems: FieldProblem[]): Priority | undefined {
  if (value === undefined) return undefined;
  if (isPriority(value)) return value;
  problems.push({ field, reason: `must be one of ${PRIORITIES.join(', ')}` });
  return undefined;
}

/** A lane as a job or task stores it: only when it is not the default, as a run does (new-run.ts). */
export function storedPriority(priority: Priority | undefined): { priority?: Priority } {
  return priority === undefined || priority === 'normal' ? {} : { priority };
}

/** Checks an onFailure URL with the same guard as a target's: notices are calls Chronos makes too. */
export function parseOnFailureUrl(url: string, problems: FieldProblem[], rules: OutboundRules): string {
  const check = checkTargetUrl(url, rules);
  if (!check.allowed) problems.push({ field: 'onFailure.url', reason: check.reason });
  return url;
}

/**
 * Validates and normalizes a create-job body; throws ValidationError listing every problem.
 * `rules` decide which targets may be called (loopback only where the operator allows it).
 * Secret headers are validated but left out: parseCreateJobRequest returns them apart.
 */
export function parseCreateJob(
  input: CreateJobInput,
  now: number,
  rules: OutboundRules = STRICT_OUTBOUND_RULES,
): NewJobFields {
  return parseCreateJobRequest(input, now, rules).fields;
}

/**
 * parseCreateJob, plus the plaintext secret headers kept apart from the job's fields, so that they
 * can only reach storage sealed (the handler seals them into `target.secretHeaders`).
 */
export function parseCreateJobRequest(
  input: CreateJobInput,
  now: number,
  rules: OutboundRules = STRICT_OUTBOUND_RULES,
): { fields: NewJobFields; secretHeaders?: Record<string, string> } {
  const problems: FieldProblem[] = [];
  const target = parseTarget(input.target, problems, rules);
  const secretHeaders = parseSecretHeaders(input.target.secretHeaders, input.target.headers, problems);
  const schedule = parseSchedule(input.schedule, now);
  if (!schedule.ok) problems.push(...schedule.errors);
  const retry = parseRetry(input.retry, problems);
  const onFailureUrl = input.onFailure ? parseOnFailureUrl(input.onFailure.url, problems, rules) : undefined;
  checkBound('timeoutSeconds', input.timeoutSeconds, problems);
  checkBound('slaSeconds', input.slaSeconds, problems);
  const asyncSettings = input.async === undefined ? undefined : parseAsyncSettings(input.async, problems);
  const priority = parsePriority(input.priority, 'priority', problems);
  const flowControl = input.flowControl === undefined ? undefined : parseFlowControl(input.flowControl);
  if (flowControl?.ok === false) problems.push(...flowControl.problems);
  if (problems.length > 0 || !schedule.ok) throw new ValidationError(problems);
  const fields: NewJobFields = {
    ...(input.name === undefined ? {} : { name: input.name }),
    target,
    schedule: schedule.schedule,
    policies: {
      misfire: input.misfire ?? DEFAULT_POLICIES.misfire,
      overlap: input.overlap ?? DEFAULT_POLICIES.overlap,
    },
    retry,
    delivery: input.delivery ?? 'at-least-once',
    ...(onFailureUrl === undefined ? {} : { onFailureUrl }),
    timeoutSeconds: input.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
    // Absent means the default (DEFAULT_SLA_SECONDS), applied where the SLA is judged.
    ...(input.slaSeconds === undefined ? {} : { slaSeconds: input.slaSeconds }),
    ...(asyncSettings === undefined ? {} : { async: asyncSettings }),
    ...storedPriority(priority),
    ...(flowControl?.ok ? { flowControl: flowControl.settings } : {}),
  };
  return secretHeaders ? { fields, secretHeaders } : { fields };
}
