/**
 * The subset of EventBridge-style content filtering that Lambda event source mappings apply to
 * records before invoking a function: a record passes when it matches ANY of the patterns.
 *
 * A pattern is an object whose leaves are arrays of matchers: literal values (string, number,
 * boolean, null), `{ prefix }`, `{ suffix }`, `{ 'equals-ignore-case' }`, `{ exists }`,
 * `{ numeric: [op, n, ...] }` and `{ 'anything-but': value | values | { prefix } | { suffix } }`.
 * Nested objects descend into the record. Unsupported operators throw instead of silently
 * dropping records the deployed mapping would deliver.
 */

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type FilterPattern = { readonly [key: string]: unknown };

/** True when `record` matches at least one of `patterns` (no patterns: everything passes). */
export function matchesAnyPattern(record: unknown, patterns: readonly FilterPattern[]): boolean {
  return patterns.length === 0 || patterns.some((pattern) => matchesPattern(record, pattern));
}

/** True when `record` satisfies every field of `pattern`. */
export function matchesPattern(record: unknown, pattern: FilterPattern): boolean {
  return Object.entries(pattern).every(([key, expected]) => {
    if (key.startsWith('$')) throw new Error(`Unsupported filter operator "${key}"`);
    const actual = isObject(record) ? record[key] : undefined;
    if (Array.isArray(expected)) return matchesLeaf(actual as Json | undefined, expected);
    if (isObject(expected)) return matchesPattern(actual, expected);
    throw new Error(`Filter pattern field "${key}" must be an array of matchers or an object`);
  });
}

function matchesLeaf(actual: Json | undefined, matchers: readonly unknown[]): boolean {
  if (actual === undefined) return matchers.some((m) => isObject(m) && m.exists === false);
  if (isObject(actual)) return matchers.some((m) => isObject(m) && m.exists === true);
  const values = Array.isArray(actual) ? actual : [actual];
  return matchers.some((matcher) => values.some((value) => matchesValue(value, matcher)));
}

function matchesValue(value: Json, matcher: unknown): boolean {
  if (!isObject(matcher)) return value === matcher;
  const [operator, ...rest] = Object.keys(matcher);
  if (operator === undefined || rest.length > 0) throw new Error(`A filter matcher takes exactly one operator`);
  const operand = matcher[operator];
  switch (operator) {
    case 'exists':
      return operand === true;
    case 'prefix':
      return typeof value === 'string' && typeof operand === 'string' && value.startsWith(operand);
    case 'suffix':
      return typeof value === 'string' && typeof operand === 'string' && value.endsWith(operand);
    case 'equals-ignore-case':
      return typeof value === 'string' && typeof operand === 'string' && value.toLowerCase() === operand.toLowerCase();
    case 'numeric':
      return typeof value === 'number' && matchesNumeric(value, operand);
    case 'anything-but':
      return !matchesAnythingButOperand(value, operand);
    default:
      throw new Error(`Unsupported filter operator "${operator}"`);
  }
}

function matchesAnythingButOperand(value: Json, operand: unknown): boolean {
  if (Array.isArray(operand)) return operand.some((excluded) => value === excluded);
  if (isObject(operand)) return matchesValue(value, operand);
  return value === operand;
}

const COMPARISONS: Record<string, (a: number, b: number) => boolean> = {
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '=': (a, b) => a === b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
};

function matchesNumeric(value: number, operand: unknown): boolean {
  if (!Array.isArray(operand) || operand.length === 0 || operand.length % 2 !== 0) {
    throw new Error('numeric takes pairs of [operator, number]');
  }
  for (let i = 0; i < operand.length; i += 2) {
    const compare = COMPARISONS[String(operand[i])];
    const bound = operand[i + 1];
    if (compare === undefined || typeof bound !== 'number')
      throw new Error(`Invalid numeric matcher ${JSON.stringify(operand)}`);
    if (!compare(value, bound)) return false;
  }
  return true;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
