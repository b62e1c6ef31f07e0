/**
 * Checks shared by the callback bodies (heartbeat-body.ts, completion-body.ts). The worker that
 * calls back may hold no API token and may send anything: every field is bounded here, in the
 * units the issue names (UTF-8 bytes for text, serialized bytes for JSON), and named in a problem.
 */
import type { FieldProblem } from '../errors.ts';

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** A problem per key of `body` not in `allowed` (the schemas' additionalProperties: false). */
export function unknownFields(body: Record<string, unknown>, allowed: readonly string[]): FieldProblem[] {
  return Object.keys(body)
    .filter((name) => !allowed.includes(name))
    .map((name) => ({ field: name.isWellFormed() ? name : name.toWellFormed(), reason: 'is not an allowed field' }));
}

/**
 * `value` as text of at most `maxBytes` UTF-8 bytes, or a problem. A lone surrogate has no UTF-8
 * form (DynamoDB would refuse it later: see well-formed.ts), so it is refused here.
 */
export function boundedText(
  field: string,
  value: unknown,
  maxBytes: number,
  problems: FieldProblem[],
): string | undefined {
  if (typeof value !== 'string') {
    problems.push({ field, reason: 'must be a string' });
    return undefined;
  }
  // Checked on the length first: a string of megabytes is refused without encoding it.
  if (value.length > maxBytes || Buffer.byteLength(value, 'utf8') > maxBytes) {
    problems.push({ field, reason: `must be at most ${maxBytes} bytes (UTF-8)` });
    return undefined;
  }
  if (!value.isWellFormed()) {
    problems.push({ field, reason: 'must be well-formed Unicode (it holds a lone surrogate)' });
    return undefined;
  }
  return value;
}
