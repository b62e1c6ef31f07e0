/**
 * The `flowControl` field of a job (issue #22, not wired into the API yet): the runs of a tenant
 * that name the same key share its limits, whatever job they belong to — at most `ratePerSecond`
 * calls started per second, at most `parallelism` calls in flight. At least one limit; keys of
 * different tenants never meet (the tenant is part of every stored key).
 */
import type { FieldProblem } from '../errors.ts';

export interface FlowControlSettings {
  /** 1–128 characters, the tenant's own name for what the limits protect (a target, an account). */
  key: string;
  ratePerSecond?: number;
  parallelism?: number;
}

export const FLOW_CONTROL_BOUNDS = {
  keyLength: { min: 1, max: 128 },
  ratePerSecond: { min: 0.01, max: 10_000 },
  parallelism: { min: 1, max: 10_000 },
} as const;

export type FlowControlResult = { ok: true; settings: FlowControlSettings } | { ok: false; problems: FieldProblem[] };

/** `flowControl` (any value) as settings, or every problem, named `flowControl.<field>`. */
export function parseFlowControl(value: unknown, field = 'flowControl'): FlowControlResult {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, problems: [{ field, reason: 'must be an object with a key and at least one limit' }] };
  const problems: FieldProblem[] = [];
  const input = value as Record<string, unknown>;
  for (const name of Object.keys(input)) {
    if (!['key', 'ratePerSecond', 'parallelism'].includes(name))
      problems.push({ field: `${field}.${name}`, reason: 'is not a field of flowControl' });
  }
  const { keyLength, ratePerSecond, parallelism } = FLOW_CONTROL_BOUNDS;
  const key = input.key;
  if (typeof key !== 'string' || [...key].length < keyLength.min || [...key].length > keyLength.max)
    problems.push({
      field: `${field}.key`,
      reason: `must be a string of ${keyLength.min} to ${keyLength.max} characters`,
    });
  const rate = input.ratePerSecond;
  if (rate !== undefined && !(typeof rate === 'number' && rate >= ratePerSecond.min && rate <= ratePerSecond.max))
    problems.push({
      field: `${field}.ratePerSecond`,
      reason: `must be a number from ${ratePerSecond.min} to ${ratePerSecond.max}`,
    });
  const slots = input.parallelism;
  if (
    slots !== undefined &&
    !(Number.isInteger(slots) && (slots as number) >= parallelism.min && (slots as number) <= parallelism.max)
  )
    problems.push({
      field: `${field}.parallelism`,
      reason: `must be an integer from ${parallelism.min} to ${parallelism.max}`,
    });
  if (rate === undefined && slots === undefined)
    problems.push({ field, reason: 'needs at least one limit: ratePerSecond or parallelism' });
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    settings: {
      key: key as string,
      ...(rate === undefined ? {} : { ratePerSecond: rate as number }),
      ...(slots === undefined ? {} : { parallelism: slots as number }),
    },
  };
}
