// biome-ignore-all lint/suspicious/noTemplateCurlyInString: Fn::Sub strings use CloudFormation's ${} syntax, not JavaScript's
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CfnScope, resolveCfnValue } from '#local/aws-fidelity/cfn-values';

const scope: CfnScope = {
  ref: (name) => ({ 'AWS::Region': 'us-east-1', 'AWS::Partition': 'aws', Table: 'chronos-local-runs' })[name],
  getAtt: (id, attribute) =>
    id === 'Table' && attribute === 'Arn' ? 'arn:aws:dynamodb:us-east-1:0:table/chronos-local-runs' : undefined,
  importValue: (name) =>
    name === 'Stateful:TableArn' ? 'arn:aws:dynamodb:us-east-1:0:table/chronos-local-runs' : undefined,
};

describe('CloudFormation values', () => {
  it('resolve Ref, both Fn::GetAtt forms and Fn::ImportValue', () => {
    expect(resolveCfnValue({ Ref: 'Table' }, scope)).toBe('chronos-local-runs');
    expect(resolveCfnValue({ 'Fn::GetAtt': ['Table', 'Arn'] }, scope)).toMatch(/table\/chronos-local-runs$/);
    expect(resolveCfnValue({ 'Fn::GetAtt': 'Table.Arn' }, scope)).toMatch(/table\/chronos-local-runs$/);
    expect(resolveCfnValue({ 'Fn::ImportValue': 'Stateful:TableArn' }, scope)).toMatch(/table\//);
  });

  it('resolve an index ARN built with Fn::Join over an import, as CDK writes it', () => {
    const indexArn = { 'Fn::Join': ['', [{ 'Fn::ImportValue': 'Stateful:TableArn' }, '/index/byJob']] };
    expect(resolveCfnValue(indexArn, scope)).toBe('arn:aws:dynamodb:us-east-1:0:table/chronos-local-runs/index/byJob');
  });

  it('resolve Fn::Sub from its variables, attributes and refs, leaving ${!literal} alone', () => {
    expect(resolveCfnValue({ 'Fn::Sub': 'arn:${AWS::Partition}:x:${AWS::Region}:${Table}' }, scope)).toBe(
      'arn:aws:x:us-east-1:chronos-local-runs',
    );
    expect(resolveCfnValue({ 'Fn::Sub': ['${T}/index/*', { T: { 'Fn::GetAtt': ['Table', 'Arn'] } }] }, scope)).toMatch(
      /chronos-local-runs\/index\/\*$/,
    );
    expect(resolveCfnValue({ 'Fn::Sub': '${Table.Arn}-${!Literal}' }, scope)).toMatch(/runs-\$\{Literal\}$/);
  });

  it('resolve to undefined, never to a guess, when any part is unknown', () => {
    expect(resolveCfnValue({ Ref: 'LogGroup' }, scope)).toBeUndefined();
    expect(resolveCfnValue({ 'Fn::Join': ['', ['a', { Ref: 'LogGroup' }]] }, scope)).toBeUndefined();
    expect(resolveCfnValue({ 'Fn::Sub': '${LogGroup.Arn}' }, scope)).toBeUndefined();
    expect(resolveCfnValue({ 'Fn::Unknown': 'x' }, scope)).toBeUndefined();
  });

  it('join resolved parts exactly as Fn::Join does', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 3 }),
        fc.array(fc.string({ maxLength: 8 }), { maxLength: 5 }),
        (separator, parts) => {
          expect(resolveCfnValue({ 'Fn::Join': [separator, parts] }, scope)).toBe(parts.join(separator));
        },
      ),
    );
  });
});
