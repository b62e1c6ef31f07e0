/**
 * Turns a PATCH /v1/jobs/{id} body into a change of a job. The JSON Schema
 * (schemas/update-job.json) has checked shapes and that at least one known field is present; this
 * adds the checks a schema cannot express, with the same rules as job creation (job-input.ts).
 */

import { type AsyncSettings, parseAsyncSettings } from './async/async-settings.ts';
import { checkBound } from './bounds.ts';
import { type FieldProblem, ValidationError } from './errors.ts';
import { type FlowControlSettings, parseFlowControl } from './flow-control/flow-control-settings.ts';
import { type CreateJobInput, parseOnFailureUrl, parsePriority, parseRetry, parseTarget } from './job-input.ts';
import type { Delivery, JobPolicies, Schedule, Target } from './model.ts';
import type { Priority } from './priority.ts';
import type { RetryPolicy } from './retry-policy.ts';
import { parseSchedule } from './schedule/index.ts';
import { parseSecretHeaders } from './secrets/secret-header-input.ts';
import { type OutboundRules, STRICT_OUTBOUND_RULES } from './url-guard.ts';

export type UpdateJobInput = Partial<
  Pick<
    CreateJobInput,
    | 'name'
    | 'target'
    | 'schedule'
    | 'misfire'
    | 'overlap'
    | 'retry'
    | 'delivery'
    | 'timeoutSeconds'
    | 'slaSeconds'
    | 'priority'
  >
> & {
  /** As at creation, or null to remove the job's onFailure URL. */
  onFailure?: CreateJobInput['onFailure'] | null;
  /** As at creation, or null: the job's calls are synchronous again. */
  async?: unknown;
  /** As at creation, or null: the job's runs no longer share a key's limits. */
  flowControl?: unknown;
};

/** The fields a PATCH replaces; absent ones keep their value. `target` and `retry` are replaced as a whole. */
export interface JobChange {
  name?: string;
  target?: Target;
  /** A new schedule: the job is rescheduled from now on. */
  schedule?: Schedule;
  policies?: Partial<JobPolicies>;
  /** The whole new policy, its absent fields at their defaults (as at creation). */
  retry?: RetryPolicy;
  delivery?: Delivery;
  /** A new onFailure URL, or null: the job no longer has one. */
  onFailureUrl?: string | null;
  timeoutSeconds?: number;
  slaSeconds?: number;
  /** New async settings (whole, defaults filled), or null: no longer async. */
  async?: AsyncSettings | null;
  /** A new lane, for the runs made from now on (runs already made keep theirs). */
  priority?: Priority;
  /** A new flow-control key and limits, or null: none. */
  flowControl?: FlowControlSettings | null;
}

/** Validates and normalizes a PATCH body; throws ValidationError listing every problem. */
export function parseUpdateJob(
  input: UpdateJobInput,
  now: number,
  rules: OutboundRules = STRICT_OUTBOUND_RULES,
): JobChange {
  return parseUpdateJobRequest(input, now, rules).change;
}

/**
 * parseUpdateJob, plus the plaintext secret headers of a new target kept apart, so that they only
 * reach storage sealed. A new target without secretHeaders has none (targets are replaced whole).
 */
export function parseUpdateJobRequest(
  input: UpdateJobInput,
  now: number,
  rules: OutboundRules = STRICT_OUTBOUND_RULES,
): { change: JobChange; secretHeaders?: Record<string, string> } {
  const problems: FieldProblem[] = [];
  const change: JobChange = {};
  let secretHeaders: Record<string, string> | undefined;
  if (input.name !== undefined) change.name = input.name;
  if (input.target !== undefined) {
    change.target = parseTarget(input.target, problems, rules);
    secretHeaders = parseSecretHeaders(input.target.secretHeaders, input.target.headers, problems);
  }
  if (input.schedule !== undefined) {
    const parsed = parseSchedule(input.schedule, now);
    if (parsed.ok) change.schedule = parsed.schedule;
    else problems.push(...parsed.errors);
  }
  if (input.misfire !== undefined || input.overlap !== undefined) {
    change.policies = {
      ...(input.misfire === undefined ? {} : { misfire: input.misfire }),
      ...(input.overlap === undefined ? {} : { overlap: input.overlap }),
    };
  }
  // The same rules as at creation (job-input.ts): a retry policy is replaced whole, like a target.
  if (input.retry !== undefined) change.retry = parseRetry(input.retry, problems);
  if (input.delivery !== undefined) change.delivery = input.delivery;
  if (input.onFailure === null) change.onFailureUrl = null;
  else if (input.onFailure !== undefined) change.onFailureUrl = parseOnFailureUrl(input.onFailure.url, problems, rules);
  checkBound('timeoutSeconds', input.timeoutSeconds, problems);
  checkBound('slaSeconds', input.slaSeconds, problems);
  if (input.timeoutSeconds !== undefined) change.timeoutSeconds = input.timeoutSeconds;
  if (input.slaSeconds !== undefined) change.slaSeconds = input.slaSeconds;
  if (input.async === null) change.async = null;
  else if (input.async !== undefined) {
    const settings = parseAsyncSettings(input.async, problems);
    if (settings) change.async = settings;
  }
  const priority = parsePriority(input.priority, 'priority', problems);
  if (priority !== undefined) change.priority = priority;
  if (input.flowControl === null) change.flowControl = null;
  else if (input.flowControl !== undefined) {
    const flowControl = parseFlowControl(input.flowControl);
    if (flowControl.ok) change.flowControl = flowControl.settings;
    else problems.push(...flowControl.problems);
  }
  if (problems.length > 0) throw new ValidationError(problems);
  if (Object.keys(change).length === 0) {
    throw new ValidationError([{ field: 'body', reason: 'must change at least one field' }]);
  }
  return secretHeaders ? { change, secretHeaders } : { change };
}
