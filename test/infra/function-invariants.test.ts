/**
 * Invariants every Chronos Lambda must keep, checked over the whole synthesized app so a new
 * function cannot forget them.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChronosApp } from '../../lib/app.ts';
import { buildChronosAppForProperties, isCdkHandler, logicalIdOf } from './support/chronos-app.ts';

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation properties are untyped JSON walked by the assertions.
type Resource = { Type: string; Properties: Record<string, any> };
let chronos: ChronosApp;
let resources: Record<string, Resource>;
let functions: Array<[string, Resource]>;

beforeAll(() => {
  chronos = buildChronosAppForProperties();
  resources = Template.fromStack(chronos.stateless).toJSON().Resources;
  // CDK's own custom-resource handlers (the console's deployment) are not Chronos functions.
  functions = Object.entries(resources).filter(([id, r]) => r.Type === 'AWS::Lambda::Function' && !isCdkHandler(id));
}, 60_000);

function ofType(type: string): Resource[] {
  return Object.values(resources).filter((r) => r.Type === type);
}

/** The logical id a `{ Ref }` or `{ Fn::GetAtt }` points at. */
function target(ref: unknown): string | undefined {
  const value = ref as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
  return value.Ref ?? value['Fn::GetAtt']?.[0];
}

describe('every Lambda function', () => {
  it('exists for each API handler, the authorizer, scanner, executor, completion, dead-letter and stream-failure handler, and the notifier', () => {
    expect(functions).toHaveLength(chronos.stateless.apiHandlers.functions.size + 7);
  });

  it('runs Node.js 24 on arm64 with active tracing, explicit memory and timeout, and source maps', () => {
    for (const [id, fn] of functions) {
      expect(fn.Properties, id).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
        MemorySize: expect.any(Number),
        Timeout: expect.any(Number),
        Environment: { Variables: expect.objectContaining({ NODE_OPTIONS: '--enable-source-maps' }) },
      });
    }
  });

  it('logs to its own log group with a retention period', () => {
    for (const [id, fn] of functions) {
      const logGroupId = target(fn.Properties.LoggingConfig?.LogGroup);
      expect(logGroupId, id).toBeDefined();
      const logGroup = resources[logGroupId as string];
      expect(logGroup?.Type).toBe('AWS::Logs::LogGroup');
      expect(logGroup?.Properties.RetentionInDays).toBe(chronos.config.logRetentionDays);
    }
  });

  it('has no AWS managed policy on its role', () => {
    for (const [id, fn] of functions) {
      const role = resources[target(fn.Properties.Role) as string];
      expect(role?.Properties.ManagedPolicyArns, id).toBeUndefined();
    }
  });

  it('has a place for failures wherever its event source calls for one', () => {
    const invokeConfigs = ofType('AWS::Lambda::EventInvokeConfig');
    const mappings = ofType('AWS::Lambda::EventSourceMapping');
    const schedules = ofType('AWS::Scheduler::Schedule');
    for (const [id] of functions) {
      // Asynchronous invocations (the scheduler): an on-failure destination and a scheduler DLQ.
      for (const schedule of schedules.filter((s) => target(s.Properties.Target.Arn) === id)) {
        expect(schedule.Properties.Target.DeadLetterConfig?.Arn, id).toBeDefined();
        const config = invokeConfigs.find((c) => target(c.Properties.FunctionName) === id);
        expect(config?.Properties.DestinationConfig?.OnFailure?.Destination, id).toBeDefined();
      }
      for (const mapping of mappings.filter((m) => target(m.Properties.FunctionName) === id)) {
        if (mapping.Properties.StartingPosition) {
          // Streams: an on-failure destination, or a poison record blocks its shard for good.
          expect(mapping.Properties.DestinationConfig?.OnFailure?.Destination, id).toBeDefined();
          expect(mapping.Properties.MaximumRetryAttempts, id).toBeGreaterThanOrEqual(0);
        } else {
          // SQS: the source queue must redrive to a dead-letter queue (it lives in the stateful stack),
          // unless the source IS the end of the failure path: the dispatch DLQ, whose consumer records dead letters.
          const queueArn = JSON.stringify(mapping.Properties.EventSourceArn);
          // The completion mapping's on-failure queue is the end of its failure path too: its
          // consumer reads each failed batch back and sets aside what it cannot finish.
          if (queueArn.includes(`"${logicalIdOf(chronos.stateless.completion.failureQueue)}"`)) {
            expect(id).toBe(logicalIdOf(chronos.stateless.streamFailures.function));
            expect(mapping.Properties.FunctionResponseTypes, id).toEqual(['ReportBatchItemFailures']);
            continue;
          }
          const statefulQueues = Template.fromStack(chronos.stateful).findResources('AWS::SQS::Queue');
          const source = Object.entries(statefulQueues).find(([queueId]) => queueArn.includes(`${queueId}Arn`));
          expect(source, id).toBeDefined();
          const isDispatchDeadLetterQueue = Object.values(statefulQueues).some((queue) =>
            JSON.stringify(queue.Properties.RedrivePolicy?.deadLetterTargetArn ?? '').includes(`"${source?.[0]}"`),
          );
          if (isDispatchDeadLetterQueue) expect(id).toBe(logicalIdOf(chronos.stateless.deadLetters.function));
          else expect(source?.[1].Properties.RedrivePolicy?.deadLetterTargetArn, id).toBeDefined();
        }
        expect(mapping.Properties.FunctionResponseTypes, id).toEqual(['ReportBatchItemFailures']);
      }
    }
    expect(schedules.length + mappings.length).toBeGreaterThanOrEqual(3);
  });
});
