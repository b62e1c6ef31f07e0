/**
 * IAM policy evaluation for one principal, as AWS does it for identity-based policies: a request
 * is allowed when some Allow statement matches its action, resource and conditions and no Deny
 * statement does. Action and resource patterns take `*` and `?`; actions compare without case.
 * Pure and precompiled: the enforcement middleware asks this on every AWS call.
 */

/** A statement with its resources already resolved to (local) ARNs. */
export interface PolicyStatement {
  effect: 'Allow' | 'Deny';
  actions: readonly string[];
  resources: readonly string[];
  /** IAM `Condition`: operator → condition key → value(s). */
  condition?: Record<string, Record<string, string | readonly string[]>>;
}

/** Condition keys of one request (`dynamodb:Select`, `dynamodb:Attributes`...); absent keys are missing. */
export type RequestContext = Readonly<Record<string, string | readonly string[]>>;

interface CompiledStatement {
  allow: boolean;
  actions: RegExp[];
  resources: RegExp[];
  condition?: PolicyStatement['condition'];
}

/** A regular expression for an IAM wildcard pattern: `*` any run of characters, `?` any one. */
export function wildcardPattern(pattern: string, ignoreCase = false): RegExp {
  const body = pattern
    .split('')
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\/-]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`, ignoreCase ? 'is' : 's');
}

/** The statements of one principal, compiled once; `allows` is the decision. */
export class CompiledPolicy {
  readonly #statements: CompiledStatement[];
  /** Statements that may apply to an action, by action (lower case). */
  readonly #byAction = new Map<string, CompiledStatement[]>();

  constructor(statements: readonly PolicyStatement[]) {
    this.#statements = statements.map((s) => ({
      allow: s.effect === 'Allow',
      actions: s.actions.map((a) => wildcardPattern(a, true)),
      resources: s.resources.map((r) => wildcardPattern(r)),
      ...(s.condition ? { condition: s.condition } : {}),
    }));
  }

  /** True when an Allow statement grants `action` on `resource` in `context` and no Deny refuses it. */
  allows(action: string, resource: string, context: RequestContext = {}): boolean {
    let allowed = false;
    for (const statement of this.#statementsFor(action)) {
      if (!statement.resources.some((pattern) => pattern.test(resource))) continue;
      if (statement.condition && !conditionHolds(statement.condition, context)) continue;
      if (!statement.allow) return false;
      allowed = true;
    }
    return allowed;
  }

  #statementsFor(action: string): CompiledStatement[] {
    const key = action.toLowerCase();
    let statements = this.#byAction.get(key);
    if (!statements) {
      statements = this.#statements.filter((s) => s.actions.some((pattern) => pattern.test(action)));
      this.#byAction.set(key, statements);
    }
    return statements;
  }
}

/**
 * Every operator of the block holds, for every key (IAM ANDs them). Supported: the String and Bool
 * operators, with `IfExists` and the `ForAllValues:`/`ForAnyValue:` set prefixes. An operator this
 * does not know fails closed: the statement does not apply, so a grant is never wider here than on AWS.
 */
export function conditionHolds(condition: NonNullable<PolicyStatement['condition']>, context: RequestContext): boolean {
  return Object.entries(condition).every(([operator, keys]) =>
    Object.entries(keys).every(([key, expected]) => operatorHolds(operator, context[key], toList(expected))),
  );
}

function operatorHolds(operator: string, actual: string | readonly string[] | undefined, expected: string[]): boolean {
  const match =
    /^(ForAllValues:|ForAnyValue:)?(StringEquals|StringNotEquals|StringLike|StringNotLike|Bool)(IfExists)?$/.exec(
      operator,
    );
  if (!match) return false;
  const [, set, base, ifExists] = match as unknown as [string, string | undefined, string, string | undefined];
  if (actual === undefined) {
    // A missing key: ForAllValues holds vacuously, a negated operator holds, others only with IfExists.
    if (set === 'ForAllValues:' || ifExists !== undefined) return true;
    return set === undefined && base.includes('Not');
  }
  const values = toList(actual);
  const one = (value: string) => singleHolds(base, value, expected);
  if (set === 'ForAllValues:') return values.every(one);
  if (set === 'ForAnyValue:') return values.some(one);
  return values.length === 1 && one(values[0] as string);
}

function singleHolds(base: string, value: string, expected: string[]): boolean {
  switch (base) {
    case 'StringEquals':
      return expected.includes(value);
    case 'StringNotEquals':
      return !expected.includes(value);
    case 'StringLike':
      return expected.some((pattern) => wildcardPattern(pattern).test(value));
    case 'StringNotLike':
      return !expected.some((pattern) => wildcardPattern(pattern).test(value));
    case 'Bool':
      return expected.map((e) => e.toLowerCase()).includes(value.toLowerCase());
    default:
      return false;
  }
}

function toList(value: string | readonly string[]): string[] {
  return typeof value === 'string' ? [value] : [...value];
}
