/**
 * Turns a create-job request body into domain values. The JSON Schema (schemas/create-job.json)
 * has already checked shapes and types; this adds the checks a schema cannot express (real URLs,
 * real instants, valid cron and time zones, header safety) and applies defaults.
 */
import { type FieldProblem, ValidationError } from './errors.ts';
import { DEFAULT_TIMEOUT_SECONDS } from './limits.ts';
import {
  DEFAULT_POLICIES,
  type Delivery,
  type HttpMethod,
  type JobPolicies,
  type Schedule,
  type Target,
} from './model.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.ts';
import { parseSchedule } from './schedule/index.ts';

export interface CreateJobInput {
  name?: string;
  target: { url: string; method?: HttpMethod; headers?: Record<string, string>; body?: unknown };
  schedule: Record<string, unknown>;
  misfire?: JobPolicies['misfire'];
  overlap?: JobPolicies['overlap'];
  retry?: Partial<RetryPolicy>;
  delivery?: Delivery;
  onFailure?: { url: string };
  timeoutSeconds?: number;
}

export interface NewJobFields {
  name?: string;
  target: Target;
  schedule: Schedule;
  policies: JobPolicies;
  retry: RetryPolicy;
  delivery: Delivery;
  onFailureUrl?: string;
  timeoutSeconds: number;
}

/** RFC 9110 token characters. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/** Validates a target; pushes every problem found. */
export function parseTarget(input: CreateJobInput['target'], problems: FieldProblem[]): Target {
  let url: URL | undefined;
  try {
    url = new URL(input.url);
  } catch {
    problems.push({ field: 'target.url', reason: 'is not a valid absolute URL' });
  }
  if (url && url.protocol !== 'http:' && url.protocol !== 'https:') {
    problems.push({ field: 'target.url', reason: 'must use http or https' });
  }
  if (url && (url.username || url.password)) {
    problems.push({ field: 'target.url', reason: 'must not carry credentials; use a header' });
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers ?? {})) {
    if (!HEADER_NAME.test(name))
      problems.push({ field: `target.headers.${name}`, reason: 'is not a valid header name' });
    else if (CONTROL_CHARACTERS.test(value))
      problems.push({ field: `target.headers.${name}`, reason: 'must not contain control characters' });
    else headers[name] = value;
  }
  let body: string | undefined;
  if (typeof input.body === 'string') body = input.body;
  else if (input.body !== undefined) {
    body = JSON.stringify(input.body);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
      headers['content-type'] = 'application/json';
  }
  return { url: input.url, method: input.method ?? 'POST', headers, ...(body === undefined ? {} : { body }) };
}

/** Fills the retry policy's defaults and checks what the schema cannot (delays in order). */
export function parseRetry(input: Partial<RetryPolicy> | undefined, problems: FieldProblem[]): RetryPolicy {
  const retry = { ...DEFAULT_RETRY_POLICY, ...input };
  if (retry.initialDelaySeconds > retry.maxDelaySeconds) {
    problems.push({ field: 'retry.initialDelaySeconds', reason: 'must not exceed retry.maxDelaySeconds' });
  }
  if (retry.retryOn?.some((status) => status === 429 || status < 400 || status > 499)) {
    problems.push({ field: 'retry.retryOn', reason: 'lists 4xx statuses other than 429 (which is always retried)' });
  }
  return retry;
}

function parseOnFailureUrl(url: string, problems: FieldProblem[]): string {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      problems.push({ field: 'onFailure.url', reason: 'must use http or https' });
  } catch {
    problems.push({ field: 'onFailure.url', reason: 'is not a valid absolute URL' });
  }
  return url;
}

/** Validates and normalizes a create-job body; throws ValidationError listing every problem. */
export function parseCreateJob(input: CreateJobInput, now: number): NewJobFields {
  const problems: FieldProblem[] = [];
  const target = parseTarget(input.target, problems);
  const schedule = parseSchedule(input.schedule, now);
  if (!schedule.ok) problems.push(...schedule.errors);
  const retry = parseRetry(input.retry, problems);
  const onFailureUrl = input.onFailure ? parseOnFailureUrl(input.onFailure.url, problems) : undefined;
  if (problems.length > 0 || !schedule.ok) throw new ValidationError(problems);
  return {
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
  };
}
