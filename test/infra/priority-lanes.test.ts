/**
 * The priority lanes in the stacks (issue #22): each lane its own dispatch queue and dead-letter
 * queue, its own executor event source with its own maximum concurrency, every function that
 * sends runs able to send to each lane, the dead-letter handler on every lane's DLQ, and
 * monitoring lane by lane. The normal lane keeps the logical ids of the single queue before lanes.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '#adapters/environment';
import { OBSERVABILITY_ENV } from '#adapters/observability-environment';
import { PRIORITIES, type Priority } from '#core/priority';
import { ROUTES } from '#handlers/api/routes';
import type { ChronosApp } from '../../lib/app.ts';
import { DISPATCH_VISIBILITY_TIMEOUT } from '../../lib/timeouts.ts';
import {
  actionsOn,
  buildChronosAppForProperties,
  CDK_JSON_CONTEXT,
  grantsOf,
  logicalIdOf,
} from './support/chronos-app.ts';

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON walked by the assertions
type Resource = { Type: string; Properties: Record<string, any> };

const STAGES = CDK_JSON_CONTEXT['chronos:stages'] as Record<string, Record<string, unknown>>;
/** Three different sizes, so a mapping given another lane's maximum cannot pass. */
const LANE_CONCURRENCY: Record<Priority, number> = { high: 7, normal: 11, low: 4 };
const SEND_URL_ENV = [ENV.dispatchQueueUrlHigh, ENV.dispatchQueueUrl, ENV.dispatchQueueUrlLow];
const MONITORED_ENV = [
  OBSERVABILITY_ENV.monitoredDispatchQueueUrlHigh,
  OBSERVABILITY_ENV.monitoredDeadLetterQueueUrlHigh,
  OBSERVABILITY_ENV.monitoredDispatchQueueUrl,
  OBSERVABILITY_ENV.monitoredDeadLetterQueueUrl,
  OBSERVABILITY_ENV.monitoredDispatchQueueUrlLow,
  OBSERVABILITY_ENV.monitoredDeadLetterQueueUrlLow,
];

let chronos: ChronosApp;
let stateless: Record<string, Resource>;
let stateful: Record<string, Resource>;
let template: Template;

beforeAll(() => {
  chronos = buildChronosAppForProperties({
    'chronos:stage': 'dev',
    'chronos:stages': {
      ...STAGES,
      dev: {
        ...STAGES.dev,
        executorHighMaxConcurrency: LANE_CONCURRENCY.high,
        executorMaxConcurrency: LANE_CONCURRENCY.normal,
        executorLowMaxConcurrency: LANE_CONCURRENCY.low,
      },
    },
  });
  template = Template.fromStack(chronos.stateless);
  stateless = template.toJSON().Resources;
  stateful = Template.fromStack(chronos.stateful).toJSON().Resources;
}, 60_000);

const queueOf = (lane: Priority) => chronos.stateful.dispatchLanes[lane].queue;
const deadLetterQueueOf = (lane: Priority) => chronos.stateful.dispatchLanes[lane].deadLetterQueue;
/** How the stateless stack names a stateful queue: an import whose export name holds its logical id. */
const arnOf = (queue: object) => new RegExp(`"[^"]*${logicalIdOf(queue as never)}Arn[^"]*"`);
const envOf = (fn: object) => stateless[logicalIdOf(fn as never)]?.Properties.Environment?.Variables ?? {};
const grantsOfFunction = (fn: { executionRole: object }) => grantsOf(template, logicalIdOf(fn.executionRole as never));
function mappingsOf(fn: object): Array<[string, Resource]> {
  const ref = logicalIdOf(fn as never);
  return Object.entries(stateless).filter(
    ([, r]) => r.Type === 'AWS::Lambda::EventSourceMapping' && r.Properties.FunctionName?.Ref === ref,
  );
}
function mappingOn(fn: object, queue: object): [string, Resource] {
  const found = mappingsOf(fn).filter(([, r]) => arnOf(queue).test(JSON.stringify(r.Properties.EventSourceArn)));
  expect(found, `one mapping of ${logicalIdOf(fn as never)} on ${logicalIdOf(queue as never)}`).toHaveLength(1);
  return found[0] as [string, Resource];
}

describe('the lanes’ queues (stateful stack)', () => {
  it('are three dispatch queues, each redriving to its own dead-letter queue after the configured receives', () => {
    const queues = new Set<string>();
    for (const lane of PRIORITIES) {
      const queue = stateful[logicalIdOf(queueOf(lane))];
      const deadLetters = logicalIdOf(deadLetterQueueOf(lane));
      expect(queue?.Type).toBe('AWS::SQS::Queue');
      expect(queue?.Properties.VisibilityTimeout).toBe(DISPATCH_VISIBILITY_TIMEOUT.toSeconds());
      expect(queue?.Properties.SqsManagedSseEnabled).toBe(true);
      expect(queue?.Properties.RedrivePolicy).toEqual({
        deadLetterTargetArn: { 'Fn::GetAtt': [deadLetters, 'Arn'] },
        maxReceiveCount: chronos.config.dispatchMaxReceiveCount,
      });
      expect(stateful[deadLetters]?.Properties.MessageRetentionPeriod).toBe(14 * 24 * 3600);
      queues.add(logicalIdOf(queueOf(lane))).add(deadLetters);
    }
    expect(queues.size).toBe(6);
  });

  it('keep the normal lane under the logical ids of the single queue before lanes (a deployed queue is not replaced)', () => {
    expect(chronos.stateful.dispatchQueue).toBe(queueOf('normal'));
    expect(chronos.stateful.dispatchDeadLetterQueue).toBe(deadLetterQueueOf('normal'));
    // The ids `cdk synth` gave these queues before lanes existed (construct paths Dispatch/Queue, Dispatch/DeadLetters).
    expect(logicalIdOf(queueOf('normal'))).toBe('DispatchQueue716BFD35');
    expect(logicalIdOf(deadLetterQueueOf('normal'))).toBe('DispatchDeadLettersQueue19CFC6B8');
  });
});

describe('the executor', () => {
  it("consumes each lane's queue through its own event source, with that lane's maximum concurrency", () => {
    const { executor } = chronos.stateless;
    expect(mappingsOf(executor.function)).toHaveLength(3);
    for (const lane of PRIORITIES) {
      const [, mapping] = mappingOn(executor.function, queueOf(lane));
      expect(mapping.Properties, lane).toMatchObject({
        BatchSize: 10,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: LANE_CONCURRENCY[lane] },
      });
      expect(mapping.Properties.MaximumBatchingWindowInSeconds, lane).toBeUndefined();
    }
    // The normal lane's mapping keeps the id it had before lanes: not replaced on deploy.
    expect(mappingOn(executor.function, queueOf('normal'))[0]).toBe(
      'ExecutorFunctionSqsEventSourceChronosdevStatefulDispatchQueueBB1B58B0B483BC19',
    );
  });

  it('may send to, and change the visibility of messages on, every lane’s queue', () => {
    const grants = grantsOfFunction(chronos.stateless.executor.function);
    for (const lane of PRIORITIES) {
      const actions = actionsOn(grants, arnOf(queueOf(lane)));
      expect(actions, lane).toEqual(
        expect.arrayContaining(['sqs:SendMessage', 'sqs:ChangeMessageVisibility', 'sqs:ReceiveMessage']),
      );
      // Never its own dead letters: those are the dead-letter handler's.
      expect(actionsOn(grants, arnOf(deadLetterQueueOf(lane))), lane).toEqual([]);
    }
    const env = envOf(chronos.stateless.executor.function);
    for (const name of SEND_URL_ENV) expect(env[name], name).toBeDefined();
  });

  it("bounds a tenant's slots by the whole fleet: the lanes' maximum concurrency together × batch size", () => {
    const env = envOf(chronos.stateless.executor.function);
    expect(env[ENV.executorMaxCallsInFlight]).toBe(String((7 + 11 + 4) * 10));
  });
});

describe('functions that send runs', () => {
  const senders = () => {
    const { scanner, completion, streamFailures, executor, apiHandlers } = chronos.stateless;
    const api = ROUTES.filter((route) => route.access.sendToDispatchQueue).map(
      (route) => [`api ${route.handler}`, apiHandlers.functions.get(route.handler)] as const,
    );
    return [
      ['scanner', scanner.function],
      ['completion', completion.function],
      ['stream-failures', streamFailures.function],
      ['executor', executor.function],
      ...api,
    ] as const;
  };

  it('include the re-drive route (it sends a run to its own lane)', () => {
    // POST /v1/runs/{runId}/retry: a dead-lettered run re-driven as a new attempt.
    const redrive = ROUTES.filter((route) => route.handler === 'retry-run');
    expect(redrive).toHaveLength(1);
    for (const route of redrive) expect(route.access.sendToDispatchQueue, route.handler).toBe(true);
  });

  it("know every lane's queue URL and may send to each", () => {
    for (const [name, fn] of senders()) {
      if (!fn) throw new Error(`no function for ${name}`);
      const env = envOf(fn);
      expect(SEND_URL_ENV.map((variable) => env[variable]).every(Boolean), name).toBe(true);
      const grants = grantsOfFunction(fn);
      for (const lane of PRIORITIES)
        expect(actionsOn(grants, arnOf(queueOf(lane))), `${name} ${lane}`).toContain('sqs:SendMessage');
    }
  });

  it('are the only ones: no other function knows a lane’s URL or may send to it', () => {
    const senderIds = new Set(senders().map(([, fn]) => logicalIdOf(fn as never)));
    const { deadLetters, notifier, authorizer, apiHandlers } = chronos.stateless;
    const others = [
      deadLetters.function,
      notifier.function,
      authorizer.function,
      ...apiHandlers.functions.values(),
    ].filter((fn) => !senderIds.has(logicalIdOf(fn)));
    expect(others.length).toBeGreaterThan(3);
    for (const fn of others) {
      const env = envOf(fn);
      for (const name of SEND_URL_ENV) expect(env[name], `${logicalIdOf(fn)} ${name}`).toBeUndefined();
      const grants = grantsOfFunction(fn);
      for (const lane of PRIORITIES)
        expect(
          actionsOn(grants, arnOf(queueOf(lane))).filter((a) => a.startsWith('sqs:Send')),
          logicalIdOf(fn),
        ).toEqual([]);
    }
  });
});

describe('the dead-letter handler', () => {
  it("consumes every lane's dead-letter queue with partial batch failures, and sends nothing", () => {
    const { deadLetters } = chronos.stateless;
    expect(mappingsOf(deadLetters.function)).toHaveLength(3);
    for (const lane of PRIORITIES) {
      const [, mapping] = mappingOn(deadLetters.function, deadLetterQueueOf(lane));
      expect(mapping.Properties.FunctionResponseTypes, lane).toEqual(['ReportBatchItemFailures']);
    }
    const grants = grantsOfFunction(deadLetters.function);
    for (const lane of PRIORITIES) {
      expect(actionsOn(grants, arnOf(deadLetterQueueOf(lane))), lane).toContain('sqs:ReceiveMessage');
      expect(actionsOn(grants, arnOf(queueOf(lane))), lane).toEqual([]);
    }
  });
});

describe('monitoring per lane', () => {
  it("gives the routes that read queue attributes each lane's queue and dead-letter queue, attributes only", () => {
    const readers = ROUTES.filter((route) => route.access.readQueueAttributes);
    expect(readers.length).toBeGreaterThan(0);
    for (const route of ROUTES) {
      const fn = chronos.stateless.apiHandlers.functions.get(route.handler);
      if (!fn) throw new Error(`no function for ${route.handler}`);
      const env = envOf(fn);
      for (const name of MONITORED_ENV)
        expect(name in env, `${route.handler} ${name}`).toBe(Boolean(route.access.readQueueAttributes));
      if (!route.access.readQueueAttributes) continue;
      const grants = grantsOfFunction(fn);
      for (const lane of PRIORITIES) {
        expect(actionsOn(grants, arnOf(deadLetterQueueOf(lane))), lane).toEqual(['sqs:GetQueueAttributes']);
        expect(actionsOn(grants, arnOf(queueOf(lane))), lane).toContain('sqs:GetQueueAttributes');
      }
    }
  });

  it('alarms on each lane’s oldest message and dead letters, with the stage thresholds, notifying the topic', () => {
    const alarms = chronos.stateless.observability.alarms.lanes;
    const topic = { Ref: logicalIdOf(chronos.stateless.observability.topic) };
    const names = new Set<string>();
    for (const lane of PRIORITIES) {
      const oldest = stateless[logicalIdOf(alarms[lane].oldestMessage)]?.Properties;
      expect(oldest, lane).toMatchObject({
        MetricName: 'ApproximateAgeOfOldestMessage',
        Namespace: 'AWS/SQS',
        Threshold: chronos.config.alarms.oldestMessageSeconds,
        AlarmActions: [topic],
      });
      expect(arnOf(queueOf(lane)).source.length).toBeGreaterThan(0);
      expect(JSON.stringify(oldest?.Dimensions), lane).toContain(`${logicalIdOf(queueOf(lane))}QueueName`);
      const dead = stateless[logicalIdOf(alarms[lane].deadLetters)]?.Properties;
      expect(dead, lane).toMatchObject({
        MetricName: 'NumberOfMessagesReceived',
        Namespace: 'AWS/SQS',
        Threshold: chronos.config.alarms.deadLetterMessages,
        AlarmActions: [topic],
      });
      expect(JSON.stringify(dead?.Dimensions), lane).toContain(`${logicalIdOf(deadLetterQueueOf(lane))}QueueName`);
      names.add(oldest?.AlarmName).add(dead?.AlarmName);
    }
    expect(names.size).toBe(6);
    // The normal lane's oldest-message alarm is the one the stage had before lanes, under its name.
    expect(alarms.normal.oldestMessage).toBe(chronos.stateless.observability.alarms.oldestMessage);
    expect(stateless[logicalIdOf(alarms.normal.oldestMessage)]?.Properties.AlarmName).toBe('chronos-dev-OldestMessage');
  });

  it('graphs each lane’s depth and oldest message on the dashboard', () => {
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboard?.Properties.DashboardBody);
    for (const lane of PRIORITIES) {
      expect(body).toContain(`Dispatch queue depth: ${lane} lane`);
      expect(body).toContain(`${lane} lane DLQ`);
      // Each lane's queue is named in the body (its QueueName attribute, imported from the stateful stack).
      expect(body).toContain(`${logicalIdOf(queueOf(lane))}QueueName`);
      expect(body).toContain(`${logicalIdOf(deadLetterQueueOf(lane))}QueueName`);
    }
    expect(body).toContain('Oldest dispatch message per lane');
  });
});
