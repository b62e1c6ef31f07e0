/**
 * A minimal local CloudWatch endpoint: it answers GetMetricData for AWS/SQS
 * ApproximateAgeOfOldestMessage only, computing the value at the moment of the request from
 * fauxqs's queue state (GET /_fauxqs/queues/:name, which neither receives nor changes a message).
 * Anything else gets a 400 in the AWS error shape, so a handler that starts using another
 * CloudWatch call fails loudly here instead of reading a made-up number.
 *
 * Wire protocol of @aws-sdk/client-cloudwatch 3.x: awsJson1_0 with awsQueryCompatible. POST,
 * `X-Amz-Target: GraniteServiceVersion20100801.<Operation>`, JSON bodies, timestamps as epoch
 * seconds; errors carry `__type` and `x-amzn-query-error: <Code>;Sender`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningEmulator } from './dynamodb-local.ts';

const TARGET_PREFIX = 'GraniteServiceVersion20100801.';
const JSON_TYPE = 'application/x-amz-json-1.0';

/** A message as fauxqs's inspection endpoint shows it (the fields read here). */
export interface InspectedMessage {
  sentTimestamp: number;
  approximateReceiveCount: number;
  /** Set when the message was sent with a delay: the moment it becomes receivable. */
  delayUntil?: number;
}

export interface InspectedQueue {
  arn: string;
  attributes: Record<string, string>;
  messages: {
    ready: InspectedMessage[];
    delayed: InspectedMessage[];
    inflight: Array<{ message: InspectedMessage; visibilityDeadline: number }>;
  };
}

/** After this many receives without a delete, SQS leaves a message out of the metric. */
const RECEIVES_LEFT_OUT = 3;

/**
 * ApproximateAgeOfOldestMessage as SQS defines it, in whole seconds: the age of the oldest
 * message a consumer could receive now, 0 when there is none.
 *
 * - In-flight messages (received, not deleted, visibility not expired) are not counted: AWS
 *   documents the metric as the age of the "oldest non-deleted message", and a merged correction
 *   of the SQS developer guide states that in-flight messages are excluded.
 * - A message received three times or more and not deleted is left out, as the SQS developer
 *   guide documents (the metric then points at the next oldest message). Not in a dead-letter
 *   queue: fauxqs moves a message there with the receive count it had in its source queue, and
 *   AWS documents a DLQ's value as the longest time a message has been in it. fauxqs does not
 *   record when a message was moved, so a DLQ message ages from its release: an upper bound.
 * - A delayed message counts only once its delay has ended, and from that moment on (its
 *   `delayUntil`), not from when it was sent: Chronos delays every dispatch message to its due
 *   second, so the age is how late the oldest released-but-unreceived run is, which is what the
 *   OldestMessage alarm compares with the SLA.
 *
 * fauxqs moves expired delays and visibility timeouts back to its ready list lazily (on the next
 * receive), so messages whose delay or visibility deadline has passed count as ready here.
 */
export function oldestReceivableAgeSeconds(
  queue: Pick<InspectedQueue, 'messages'>,
  now: number,
  options: { deadLetterQueue?: boolean } = {},
): number {
  const { ready, delayed, inflight } = queue.messages;
  const receivable = [
    ...ready,
    ...delayed.filter((message) => (message.delayUntil ?? 0) <= now),
    ...inflight.filter((entry) => entry.visibilityDeadline <= now).map((entry) => entry.message),
  ].filter((message) => options.deadLetterQueue || message.approximateReceiveCount < RECEIVES_LEFT_OUT);
  const oldest = Math.min(...receivable.map((message) => message.delayUntil ?? message.sentTimestamp));
  return Number.isFinite(oldest) ? Math.max(0, Math.floor((now - oldest) / 1000)) : 0;
}

class AwsError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

interface MetricDataQuery {
  Id?: string;
  Label?: string;
  ReturnData?: boolean;
  Expression?: string;
  MetricStat?: {
    Metric?: { Namespace?: string; MetricName?: string; Dimensions?: Array<{ Name?: string; Value?: string }> };
    Period?: number;
    Stat?: string;
  };
}

/** Starts the endpoint on a free loopback port; `sqsEndpoint` is fauxqs's (in this process or another). */
export async function startCloudWatchMetrics(options: {
  sqsEndpoint: string;
  port?: number;
  now?: () => number;
}): Promise<RunningEmulator> {
  const now = options.now ?? Date.now;
  const fauxqs = async <T>(path: string): Promise<T | undefined> => {
    const response = await fetch(`${options.sqsEndpoint}/_fauxqs/queues${path}`);
    if (response.status === 404) return undefined;
    if (!response.ok) throw new AwsError(500, 'InternalServiceFault', `fauxqs answered ${response.status}`);
    return (await response.json()) as T;
  };
  const inspect = (queueName: string) => fauxqs<InspectedQueue>(`/${encodeURIComponent(queueName)}`);
  /** Whether some queue's redrive policy names this one as its dead-letter queue. */
  const isDeadLetterQueue = async (queue: InspectedQueue): Promise<boolean> => {
    for (const { name } of (await fauxqs<Array<{ name: string }>>('')) ?? []) {
      const policy = (await inspect(name))?.attributes.RedrivePolicy;
      if (policy && JSON.parse(policy).deadLetterTargetArn === queue.arn) return true;
    }
    return false;
  };
  const ageOf = async (queue: InspectedQueue): Promise<number> => {
    const at = now();
    const value = oldestReceivableAgeSeconds(queue, at);
    // Only worth the look-up when a message was left out for its receives.
    const leftOut = oldestReceivableAgeSeconds(queue, at, { deadLetterQueue: true });
    return leftOut !== value && (await isDeadLetterQueue(queue)) ? leftOut : value;
  };

  const getMetricData = async (input: {
    MetricDataQueries?: MetricDataQuery[];
    StartTime?: number;
    EndTime?: number;
  }) => {
    const { MetricDataQueries: queries = [], StartTime: start, EndTime: end } = input;
    if (typeof start !== 'number' || typeof end !== 'number' || start >= end) {
      throw new AwsError(
        400,
        'InvalidParameterValue',
        'StartTime and EndTime (epoch seconds, start < end) are required',
      );
    }
    const results = [];
    for (const query of queries) {
      const stat = query.MetricStat;
      const metric = stat?.Metric;
      const dimensions = metric?.Dimensions ?? [];
      const queueName = dimensions[0]?.Value;
      const period = stat?.Period ?? 0;
      if (
        !query.Id ||
        query.Expression !== undefined ||
        metric?.Namespace !== 'AWS/SQS' ||
        metric.MetricName !== 'ApproximateAgeOfOldestMessage' ||
        dimensions.length !== 1 ||
        dimensions[0]?.Name !== 'QueueName' ||
        !queueName ||
        stat?.Stat !== 'Maximum' ||
        period <= 0 ||
        period % 60 !== 0
      ) {
        throw new AwsError(
          400,
          'InvalidParameterValue',
          'The local CloudWatch answers only MetricStat queries of AWS/SQS ApproximateAgeOfOldestMessage ' +
            '(one QueueName dimension, Stat Maximum, a period that is a multiple of 60)',
        );
      }
      if (query.ReturnData === false) continue;
      // Only the present is known: report it as the newest period that lies in the window.
      const at = Math.floor(Math.min(now() / 1000, end) / period) * period;
      const queue = at >= start ? await inspect(queueName) : undefined;
      // An unknown queue has no metric: an empty result, as CloudWatch answers.
      const points = queue ? { Timestamps: [at], Values: [await ageOf(queue)] } : empty();
      results.push({
        Id: query.Id,
        Label: query.Label ?? 'ApproximateAgeOfOldestMessage',
        ...points,
        StatusCode: 'Complete',
      });
    }
    return { MetricDataResults: results, Messages: [] };
  };

  const server = createServer((request, response) => {
    void answer(request, response, getMetricData);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const empty = () => ({ Timestamps: [] as number[], Values: [] as number[] });

async function answer(
  request: IncomingMessage,
  response: ServerResponse,
  getMetricData: (input: Record<string, unknown>) => Promise<unknown>,
): Promise<void> {
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const target = String(request.headers['x-amz-target'] ?? '');
    if (request.method !== 'POST' || !String(request.headers['content-type'] ?? '').startsWith(JSON_TYPE)) {
      throw new AwsError(400, 'InvalidAction', `Expected a POST with Content-Type ${JSON_TYPE}`);
    }
    if (target !== `${TARGET_PREFIX}GetMetricData`) {
      throw new AwsError(400, 'InvalidAction', `The local CloudWatch does not support ${target || 'this request'}`);
    }
    let input: Record<string, unknown>;
    try {
      input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    } catch {
      throw new AwsError(400, 'InvalidParameterValue', 'The request body is not JSON');
    }
    send(response, 200, await getMetricData(input));
  } catch (error) {
    const failure =
      error instanceof AwsError ? error : new AwsError(500, 'InternalServiceFault', (error as Error).message);
    send(
      response,
      failure.status,
      { __type: failure.code, message: failure.message },
      {
        'x-amzn-query-error': `${failure.code};${failure.status < 500 ? 'Sender' : 'Receiver'}`,
      },
    );
  }
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': JSON_TYPE, ...headers });
  response.end(JSON.stringify(body));
}
