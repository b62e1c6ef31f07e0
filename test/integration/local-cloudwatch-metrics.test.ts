/**
 * The oldest-message-age adapter against the local CloudWatch endpoint and fauxqs: the client
 * built by aws-clients.ts from AWS_ENDPOINT_URL_CLOUDWATCH, as the handlers build it.
 *
 * Chosen semantics (mirroring SQS): a queue that exists always has a datapoint, 0 when nothing is
 * receivable now (empty, only delayed messages, only in-flight ones); only a queue CloudWatch
 * knows nothing about has no datapoint (noData).
 */
import {
  CloudWatchClient,
  GetMetricDataCommand,
  InvalidParameterValueException,
  ListMetricsCommand,
} from '@aws-sdk/client-cloudwatch';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCloudWatchClient } from '#adapters/aws-clients';
import { type OldestMessageAge, oldestMessageAges } from '#adapters/sqs/oldest-message-age';
import { startCloudWatchMetrics } from '#local/emulators/cloudwatch-metrics';
import type { RunningEmulator } from '#local/emulators/dynamodb-local';
import { startSqsEmulator } from '#local/emulators/fauxqs';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators/local-clients';
import { setEnvironment } from '#local/function-environment';

let fauxqs: RunningEmulator;
let cloudwatchEmulator: RunningEmulator;
let sqs: SQSClient;
let cloudwatch: CloudWatchClient;
let restoreEnvironment: () => void;
let ages: Record<string, OldestMessageAge>;
let readAt: number;
const sentAt: Record<string, number> = {};

async function queue(name: string, attributes: Record<string, string> = {}): Promise<string> {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  return QueueUrl as string;
}

beforeAll(async () => {
  fauxqs = await startSqsEmulator();
  cloudwatchEmulator = await startCloudWatchMetrics({ sqsEndpoint: fauxqs.endpoint });
  restoreEnvironment = setEnvironment({
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_CLOUDWATCH: cloudwatchEmulator.endpoint,
  });
  sqs = new SQSClient({ endpoint: fauxqs.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  cloudwatch = createCloudWatchClient();

  const ready = await queue('ready');
  const delayed = await queue('delayed');
  const inFlight = await queue('in-flight');
  await queue('empty');
  const deadLetter = await queue('source-dlq');
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: deadLetter, AttributeNames: ['QueueArn'] }),
  );
  const source = await queue('source', {
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes?.QueueArn, maxReceiveCount: 3 }),
  });

  sentAt.ready = Date.now();
  await sqs.send(new SendMessageCommand({ QueueUrl: ready, MessageBody: 'waiting' }));
  await sqs.send(new SendMessageCommand({ QueueUrl: delayed, MessageBody: 'later', DelaySeconds: 60 }));
  await sqs.send(new SendMessageCommand({ QueueUrl: inFlight, MessageBody: 'taken' }));
  await sqs.send(new ReceiveMessageCommand({ QueueUrl: inFlight, VisibilityTimeout: 60 }));
  // Received three times without a delete (visibility 0: back at once); the fourth receive moves
  // it to the dead-letter queue with its receive count.
  sentAt.deadLetter = Date.now();
  await sqs.send(new SendMessageCommand({ QueueUrl: source, MessageBody: 'poison' }));
  for (let i = 0; i < 4; i++) await sqs.send(new ReceiveMessageCommand({ QueueUrl: source, VisibilityTimeout: 0 }));

  // Ages are whole seconds: let the oldest ones reach 1 s.
  await new Promise((resolve) => setTimeout(resolve, 1_300));
  readAt = Date.now();
  ages = await oldestMessageAges(cloudwatch, {
    ready: 'ready',
    delayed: 'delayed',
    inFlight: 'in-flight',
    empty: 'empty',
    source: 'source',
    deadLetter: 'source-dlq',
    unknown: 'no-such-queue',
  });
}, 30_000);

afterAll(async () => {
  cloudwatch?.destroy();
  sqs?.destroy();
  restoreEnvironment?.();
  await cloudwatchEmulator?.stop();
  await fauxqs?.stop();
});

const secondsSince = (at: number) => Math.floor((Date.now() - at) / 1000);

describe('oldestMessageAges on the local CloudWatch', () => {
  it('reports the age of a released message nobody received', () => {
    expect(ages.ready).toMatchObject({ kind: 'datapoint', seconds: expect.any(Number) });
    const { seconds, at } = ages.ready as { seconds: number; at: number };
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(secondsSince(sentAt.ready as number));
    // The newest datapoint is the current minute.
    expect(readAt - at).toBeLessThan(60_000);
    expect(readAt - at).toBeGreaterThanOrEqual(0);
  });

  it('reports 0, not no data, while the only message is delayed or in flight, or there is none', () => {
    for (const name of ['delayed', 'inFlight', 'empty', 'source']) {
      expect(ages[name], name).toMatchObject({ kind: 'datapoint', seconds: 0 });
    }
  });

  it('counts a dead-lettered message however often its source queue received it', () => {
    expect(ages.deadLetter).toMatchObject({ kind: 'datapoint' });
    expect((ages.deadLetter as { seconds: number }).seconds).toBeGreaterThan(0);
  });

  it('has no datapoint for a queue that does not exist', () => {
    expect(ages.unknown).toEqual({ kind: 'noData' });
  });

  it('answers nothing else: other operations and other metrics get a 400 in the AWS error shape', async () => {
    const other = new CloudWatchClient({
      endpoint: cloudwatchEmulator.endpoint,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
      maxAttempts: 1,
    });
    try {
      await expect(other.send(new ListMetricsCommand({}))).rejects.toMatchObject({
        name: 'InvalidAction',
        $metadata: { httpStatusCode: 400 },
      });
      const lambdaErrors = new GetMetricDataCommand({
        StartTime: new Date(Date.now() - 300_000),
        EndTime: new Date(),
        MetricDataQueries: [
          {
            Id: 'errors',
            MetricStat: { Metric: { Namespace: 'AWS/Lambda', MetricName: 'Errors' }, Period: 60, Stat: 'Sum' },
          },
        ],
      });
      await expect(other.send(lambdaErrors)).rejects.toBeInstanceOf(InvalidParameterValueException);
    } finally {
      other.destroy();
    }
  });
});
