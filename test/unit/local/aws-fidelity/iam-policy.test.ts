import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CompiledPolicy, conditionHolds, type PolicyStatement, wildcardPattern } from '#local/aws-fidelity/iam-policy';

const TABLE = 'arn:aws:dynamodb:us-east-1:000000000000:table/chronos-local-runs';
const allow = (actions: string[], resources: string[], condition?: PolicyStatement['condition']): PolicyStatement => ({
  effect: 'Allow',
  actions,
  resources,
  ...(condition ? { condition } : {}),
});

/** Text without IAM wildcards: what a literal pattern and a real ARN are made of. */
const literal = fc.string({ maxLength: 30 }).filter((s) => !/[*?]/.test(s));

describe('wildcard patterns', () => {
  it('match a literal exactly, regex characters included', () => {
    fc.assert(
      fc.property(literal, literal, (pattern, other) => {
        expect(wildcardPattern(pattern).test(pattern)).toBe(true);
        expect(wildcardPattern(pattern).test(other)).toBe(pattern === other);
      }),
    );
  });

  it('let * stand for any run of characters and ? for exactly one', () => {
    fc.assert(
      fc.property(
        literal,
        literal,
        fc.string({ maxLength: 10 }),
        fc.string({ minLength: 1, maxLength: 1 }),
        (a, b, run, one) => {
          expect(wildcardPattern(`${a}*${b}`).test(`${a}${run}${b}`)).toBe(true);
          expect(wildcardPattern(`${a}?${b}`).test(`${a}${one}${b}`)).toBe(true);
          expect(wildcardPattern(`${a}?${b}`).test(`${a}${b}`)).toBe(false);
        },
      ),
    );
  });

  it('compare actions without case, as IAM does, and resources with it', () => {
    const policy = new CompiledPolicy([allow(['dynamodb:getitem'], [TABLE])]);
    expect(policy.allows('dynamodb:GetItem', TABLE)).toBe(true);
    expect(policy.allows('dynamodb:GetItem', TABLE.toUpperCase())).toBe(false);
  });
});

describe('a compiled policy', () => {
  it('allows only what an Allow statement names: action and resource both', () => {
    const policy = new CompiledPolicy([allow(['dynamodb:GetItem', 'dynamodb:Query'], [TABLE, `${TABLE}/index/byJob`])]);
    expect(policy.allows('dynamodb:GetItem', TABLE)).toBe(true);
    expect(policy.allows('dynamodb:Query', `${TABLE}/index/byJob`)).toBe(true);
    expect(policy.allows('dynamodb:Scan', TABLE)).toBe(false);
    expect(policy.allows('dynamodb:Query', `${TABLE}/index/other`)).toBe(false);
    expect(policy.allows('dynamodb:GetItem', `${TABLE}-2`)).toBe(false);
  });

  it('lets a Deny win over any Allow, and never allows with no statement', () => {
    const action = fc.constantFrom('dynamodb:GetItem', 'dynamodb:Scan', 'sqs:SendMessage', 'kms:Decrypt');
    const resource = fc.constantFrom(TABLE, 'arn:aws:sqs:us-east-1:000000000000:q', '*');
    const statement = fc.record({
      effect: fc.constantFrom('Allow' as const, 'Deny' as const),
      actions: fc.array(fc.oneof(action, fc.constantFrom('dynamodb:*', '*', 'sqs:Send*')), { maxLength: 3 }),
      resources: fc.array(fc.oneof(resource, fc.constantFrom('arn:aws:dynamodb:*', '*')), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(fc.array(statement, { maxLength: 5 }), action, resource, (statements, a, r) => {
        const decided = new CompiledPolicy(statements).allows(a, r);
        const matches = (s: PolicyStatement) =>
          s.actions.some((p) => wildcardPattern(p, true).test(a)) &&
          s.resources.some((p) => wildcardPattern(p).test(r));
        const expected =
          statements.some((s) => s.effect === 'Allow' && matches(s)) &&
          !statements.some((s) => s.effect === 'Deny' && matches(s));
        expect(decided).toBe(expected);
        // Adding a Deny of everything never leaves anything allowed.
        expect(
          new CompiledPolicy([...statements, { effect: 'Deny', actions: ['*'], resources: ['*'] }]).allows(a, r),
        ).toBe(false);
      }),
    );
  });

  it('applies a statement with a condition only where the request satisfies it', () => {
    const keysOnly = allow(['dynamodb:Scan'], [TABLE], {
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['pk', 'sk'] },
      StringEquals: { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' },
    });
    const policy = new CompiledPolicy([keysOnly]);
    const select = { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' };
    expect(policy.allows('dynamodb:Scan', TABLE, { ...select, 'dynamodb:Attributes': ['pk', 'sk'] })).toBe(true);
    expect(policy.allows('dynamodb:Scan', TABLE, { ...select, 'dynamodb:Attributes': ['pk', 'secret'] })).toBe(false);
    // No Select: a Scan of every attribute, which ForAllValues alone would let through.
    expect(policy.allows('dynamodb:Scan', TABLE, { 'dynamodb:Attributes': ['pk'] })).toBe(false);
    expect(policy.allows('dynamodb:Scan', TABLE, {})).toBe(false);
  });
});

describe('conditions', () => {
  it('treat a missing key as IAM does: positive operators fail, IfExists, negated and ForAllValues hold', () => {
    expect(conditionHolds({ StringEquals: { k: 'v' } }, {})).toBe(false);
    expect(conditionHolds({ StringEqualsIfExists: { k: 'v' } }, {})).toBe(true);
    expect(conditionHolds({ StringNotEquals: { k: 'v' } }, {})).toBe(true);
    expect(conditionHolds({ 'ForAllValues:StringEquals': { k: ['v'] } }, {})).toBe(true);
    expect(conditionHolds({ 'ForAnyValue:StringEquals': { k: ['v'] } }, {})).toBe(false);
  });

  it('match StringLike patterns and set operators over multi-valued keys', () => {
    expect(conditionHolds({ StringLike: { k: 'chronos-*' } }, { k: 'chronos-x' })).toBe(true);
    expect(conditionHolds({ StringLike: { k: 'chronos-*' } }, { k: 'other' })).toBe(false);
    expect(conditionHolds({ 'ForAnyValue:StringEquals': { k: ['a', 'b'] } }, { k: ['c', 'b'] })).toBe(true);
    expect(conditionHolds({ 'ForAllValues:StringEquals': { k: ['a', 'b'] } }, { k: ['c', 'b'] })).toBe(false);
  });

  it('fail closed on an operator they do not know (never wider than AWS)', () => {
    expect(conditionHolds({ NumericLessThan: { k: '5' } }, { k: '1' })).toBe(false);
    expect(conditionHolds({ IpAddress: { 'aws:SourceIp': '10.0.0.0/8' } }, {})).toBe(false);
  });
});
