import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { JOBS_TABLE, RUNS_TABLE, TENANTS_TABLE } from '#adapters/dynamodb/table-definitions';
import { DEFAULT_CONFIG } from '../../lib/config.ts';
import { StatefulStack } from '../../lib/stacks/stateful-stack.ts';
import { secondaryIndexes } from '../../lib/table-indexes.ts';
import { DISPATCH_VISIBILITY_TIMEOUT, EXECUTOR_TIMEOUT } from '../../lib/timeouts.ts';
import { logicalIdOf } from './support/chronos-app.ts';

const BASE = { ...DEFAULT_CONFIG, stage: 'test' };

function statefulTemplate(overrides: Partial<typeof BASE> = {}): { stack: StatefulStack; template: Template } {
  const stack = new StatefulStack(new App(), 'Stateful', { config: { ...BASE, ...overrides } });
  return { stack, template: Template.fromStack(stack) };
}

describe('StatefulStack (dev: data not retained)', () => {
  let stack: StatefulStack;
  let template: Template;
  beforeAll(() => {
    ({ stack, template } = statefulTemplate({ dispatchMaxReceiveCount: 7 }));
  });

  it('keys the jobs table by tenant and job, on demand, with point-in-time recovery', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: JOBS_TABLE.partitionKey, KeyType: 'HASH' },
        { AttributeName: JOBS_TABLE.sortKey, KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      DeletionProtectionEnabled: false,
    });
  });

  it('gives the jobs table the sharded due-index projecting what the scanner reads', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      AttributeDefinitions: Match.arrayWith([
        { AttributeName: JOBS_TABLE.dueIndex.partitionKey, AttributeType: 'S' },
        { AttributeName: JOBS_TABLE.dueIndex.sortKey, AttributeType: 'N' },
      ]),
      GlobalSecondaryIndexes: [
        {
          IndexName: JOBS_TABLE.dueIndex.name,
          KeySchema: [
            { AttributeName: JOBS_TABLE.dueIndex.partitionKey, KeyType: 'HASH' },
            { AttributeName: JOBS_TABLE.dueIndex.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...JOBS_TABLE.dueIndex.projectedAttributes] },
        },
      ],
    });
  });

  it('streams old and new images of runs and expires them by TTL', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: RUNS_TABLE.partitionKey, KeyType: 'HASH' },
        { AttributeName: RUNS_TABLE.sortKey, KeyType: 'RANGE' },
      ],
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      TimeToLiveSpecification: { AttributeName: RUNS_TABLE.ttlAttribute, Enabled: true },
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  it('creates every runs index declared in the table definitions, projecting whole runs unless it names its attributes', () => {
    const declared = secondaryIndexes(RUNS_TABLE);
    expect(declared.map((i) => i.name)).toEqual(
      expect.arrayContaining(['sweep-index', 'dead-letter-index', 'deadline-index']),
    );
    // The deadline index holds the keys of runs only: each is read again before it is decided on.
    expect(RUNS_TABLE.deadlineIndex.projectedAttributes).toEqual(['tenantId', 'jobId', 'scheduledFor', 'attempt']);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: Match.arrayWith([{ AttributeName: RUNS_TABLE.partitionKey, KeyType: 'HASH' }]),
      GlobalSecondaryIndexes: declared.map((index) => ({
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: index.projectedAttributes
          ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projectedAttributes] }
          : { ProjectionType: 'ALL' },
      })),
    });
  });

  it('deletes tables with the stack when data is not retained', () => {
    const tables = Object.values(template.findResources('AWS::DynamoDB::Table'));
    // jobs, runs, workflow runs, metrics, tenants
    expect(tables).toHaveLength(5);
    expect(tables.every((t) => t.DeletionPolicy === 'Delete')).toBe(true);
  });

  it('keys the tenants table by pk and sk, on demand, with point-in-time recovery and TTL', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: TENANTS_TABLE.partitionKey, KeyType: 'HASH' },
        { AttributeName: TENANTS_TABLE.sortKey, KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      // Create Idempotency-Keys expire; never the signing secrets' own (millisecond) `expiresAt`.
      TimeToLiveSpecification: { AttributeName: TENANTS_TABLE.ttlAttribute, Enabled: true },
    });
    expect(TENANTS_TABLE.ttlAttribute).not.toBe('expiresAt');
    expect(logicalIdOf(stack.tenantsTable)).toMatch(/^Tenants/);
  });

  it('keeps a rotating KMS key for secret headers', () => {
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    expect(Object.keys(template.findResources('AWS::KMS::Key'))).toEqual([logicalIdOf(stack.secretsKey)]);
  });

  it('sets the dispatch queue visibility to at least six executor timeouts', () => {
    expect(DISPATCH_VISIBILITY_TIMEOUT.toSeconds()).toBeGreaterThanOrEqual(6 * EXECUTOR_TIMEOUT.toSeconds());
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: DISPATCH_VISIBILITY_TIMEOUT.toSeconds(),
      SqsManagedSseEnabled: true,
    });
  });

  it('redrives dispatch messages to its dead-letter queue after the configured receives', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [logicalIdOf(stack.dispatchDeadLetterQueue), 'Arn'] },
        maxReceiveCount: 7,
      },
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      MessageRetentionPeriod: 14 * 24 * 3600,
      SqsManagedSseEnabled: true,
    });
  });

  it("denies non-TLS access to every queue: each lane's dispatch queue and failure notices, and their dead-letter queues", () => {
    const policies = template.findResources('AWS::SQS::QueuePolicy', {
      Properties: {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      },
    });
    // Three lanes' dispatch queues and the failure notices, each with its dead-letter queue.
    expect(Object.keys(policies)).toHaveLength(8);
  });
});

describe('StatefulStack (prod: data retained)', () => {
  it('retains tables and queues and turns on deletion protection', () => {
    const { template } = statefulTemplate({ retainData: true });

    const tables = Object.values(template.findResources('AWS::DynamoDB::Table'));
    expect(tables).toHaveLength(5);
    expect(tables.every((t) => t.DeletionPolicy === 'Retain' && t.Properties.DeletionProtectionEnabled)).toBe(true);
    const keys = Object.values(template.findResources('AWS::KMS::Key'));
    expect(keys.map((k) => k.DeletionPolicy)).toEqual(['Retain']);
    const queues = Object.values(template.findResources('AWS::SQS::Queue'));
    expect(queues.every((q) => q.DeletionPolicy === 'Retain')).toBe(true);
  });

  it('rejects a dispatch queue without redelivery', () => {
    expect(() => statefulTemplate({ dispatchMaxReceiveCount: 0 })).toThrow(
      /maxReceiveCount must be a positive integer/,
    );
  });
});
