/**
 * The body of `POST /v1/callbacks/{token}/complete` (schemas/callback-complete.json):
 * `{ status: "succeeded" | "failed", output?: any JSON ≤ 64 KB, error?: ≤ 4 KB, retryable?: bool (true) }`.
 *
 * Each completion carries a digest of what it says (status, output, error, retryable, keys in any
 * order): the run keeps the digest of the completion that ended it, so the same completion sent
 * again is told apart from a different one (completion-decision.ts answers the first with the run,
 * the second with RUN_ENDED).
 */
import type { FieldProblem } from '../errors.ts';
import { boundedJson, canonicalDigest } from './bounded-json.ts';
import { boundedText, isPlainObject, unknownFields } from './callback-fields.ts';

export const MAX_OUTPUT_BYTES = 64 * 1024;
export const MAX_COMPLETION_ERROR_BYTES = 4 * 1024;
export const COMPLETION_STATUSES = ['succeeded', 'failed'] as const;
export type CompletionStatus = (typeof COMPLETION_STATUSES)[number];

export interface Completion {
  status: CompletionStatus;
  /** The output serialized (bounded-json.ts), stored as text. */
  outputJson?: string;
  error?: string;
  /** Whether a failure may be retried (per the job's retry policy); true unless the worker said false. */
  retryable: boolean;
  /** Hex SHA-256 of the completion as sent, key order aside: what makes a repeat recognisable. */
  digest: string;
}

export type ParsedCompletion = { ok: true; completion: Completion } | { ok: false; problems: FieldProblem[] };

const FIELDS = ['status', 'output', 'error', 'retryable'] as const;

/** Validates a completion body (any value); every problem names its field. Never throws. */
export function parseCompletion(body: unknown): ParsedCompletion {
  if (!isPlainObject(body)) return { ok: false, problems: [{ field: 'body', reason: 'must be a JSON object' }] };
  const problems = unknownFields(body, FIELDS);
  const status = body.status;
  if (status === undefined) problems.push({ field: 'status', reason: 'is required' });
  else if (!(COMPLETION_STATUSES as readonly unknown[]).includes(status))
    problems.push({ field: 'status', reason: `must be one of ${COMPLETION_STATUSES.join(', ')}` });
  let outputJson: string | undefined;
  if (body.output !== undefined) {
    const output = boundedJson(body.output, MAX_OUTPUT_BYTES);
    if (output.ok) outputJson = output.json;
    else problems.push({ field: 'output', reason: output.reason });
  }
  const error =
    body.error === undefined ? undefined : boundedText('error', body.error, MAX_COMPLETION_ERROR_BYTES, problems);
  if (body.retryable !== undefined && typeof body.retryable !== 'boolean')
    problems.push({ field: 'retryable', reason: 'must be a boolean' });
  if (problems.length > 0) return { ok: false, problems };
  const retryable = body.retryable !== false;
  const completion: Completion = {
    status: status as CompletionStatus,
    ...(outputJson === undefined ? {} : { outputJson }),
    ...(error === undefined ? {} : { error }),
    retryable,
    // The default made explicit, so `{status:"failed"}` and `{status:"failed",retryable:true}` are one completion.
    digest: canonicalDigest({ status, output: body.output, error, retryable }),
  };
  return { ok: true, completion };
}
