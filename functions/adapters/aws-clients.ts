/**
 * AWS SDK clients for every function. Endpoints come only from the standard AWS_ENDPOINT_URL*
 * variables, so the same code talks to AWS, LocalStack or the local emulators.
 */
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { MiddlewareStack } from '@smithy/types';
import { KeyedSha256 } from './keyed-sha256.ts';
import { traced } from './tracer.ts';

/** The services Chronos' functions talk to. */
export type AwsService = 'DynamoDB' | 'DynamoDBStreams' | 'SQS' | 'CloudWatch';

/**
 * Adds middleware to the stack of a client just created for `service`. Nothing is registered in
 * Lambda; the benchmark registers one to count requests and consumed capacity.
 */
// biome-ignore lint/suspicious/noExplicitAny: a hook serves clients of every service, whatever their input types
export type ClientMiddlewareHook = (service: AwsService, stack: MiddlewareStack<any, any>) => void;

const clientHooks: ClientMiddlewareHook[] = [];

/** Applies `hook` to every client created from now on; returns a function that unregisters it. */
export function registerClientMiddleware(hook: ClientMiddlewareHook): () => void {
  clientHooks.push(hook);
  return () => {
    const index = clientHooks.indexOf(hook);
    if (index >= 0) clientHooks.splice(index, 1);
  };
}

/** The SDK's connection pool per client (its default), sized for one invocation at a time. */
export const SDK_SOCKETS_PER_INVOCATION = 50;

/**
 * Sockets for one client of a process whose invocations share it: the SDK's 50 per invocation
 * that may run at once (`AWS_LAMBDA_MAX_CONCURRENCY`, set by Lambda when one environment serves
 * several invocations, and by the local runtime, where every function shares one process). One
 * shared pool of 50 made a 5,000-run burst's claims queue behind each other locally — thousands of
 * requests waiting for a socket — where on Lambda each environment has its own. Unset: the SDK's 50.
 */
export function socketsPerClient(env: NodeJS.ProcessEnv = process.env): number {
  const concurrency = Number(env.AWS_LAMBDA_MAX_CONCURRENCY);
  return Number.isSafeInteger(concurrency) && concurrency > 1
    ? concurrency * SDK_SOCKETS_PER_INVOCATION
    : SDK_SOCKETS_PER_INVOCATION;
}

/** What every client is built with: its endpoint, if one is set, the faster signing hash and its pool. */
function clientConfig(service: EndpointService) {
  const endpoint = endpointFor(service);
  const maxSockets = socketsPerClient();
  return {
    sha256: KeyedSha256,
    requestHandler: { httpAgent: { maxSockets }, httpsAgent: { maxSockets } },
    ...(endpoint ? { endpoint } : {}),
  };
}

/**
 * Takes the SDK's logger middleware off a client. Chronos gives the SDK no logger (its own lines
 * say what a call did), yet that middleware builds a redacted copy of every request's input and
 * every response's output for the no-op logger, on each request.
 */
function withoutSdkLogging<T extends { middlewareStack: { remove(name: string): boolean } }>(client: T): T {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}

type EndpointService = 'DYNAMODB' | 'DYNAMODB_STREAMS' | 'SQS' | 'CLOUDWATCH';

function endpointFor(service: EndpointService): string | undefined {
  return process.env[`AWS_ENDPOINT_URL_${service}`] ?? process.env.AWS_ENDPOINT_URL;
}

/** A DynamoDB document client that drops undefined attributes instead of failing on them. */
export function createDocumentClient(): DynamoDBDocumentClient {
  const client = withoutSdkLogging(new DynamoDBClient(clientConfig('DYNAMODB')));
  // The document client shares this stack, so its commands pass through the hooks too.
  for (const hook of clientHooks) hook('DynamoDB', client.middlewareStack);
  // X-Ray subsegments per call, on Lambda only (tracer.ts); the document client shares this stack.
  return DynamoDBDocumentClient.from(traced(client), { marshallOptions: { removeUndefinedValues: true } });
}

/**
 * An SQS client. The endpoint is passed explicitly (not only through the SDK's own env lookup)
 * because emulators hand out queue URLs whose host names do not resolve, and an explicit
 * endpoint makes the SDK send to it instead of the queue URL's host.
 */
export function createSqsClient(): SQSClient {
  const client = withoutSdkLogging(new SQSClient(clientConfig('SQS')));
  for (const hook of clientHooks) hook('SQS', client.middlewareStack);
  return traced(client);
}

/** A CloudWatch client (metric reads: the queues' oldest-message age). */
export function createCloudWatchClient(): CloudWatchClient {
  const client = withoutSdkLogging(new CloudWatchClient(clientConfig('CLOUDWATCH')));
  for (const hook of clientHooks) hook('CloudWatch', client.middlewareStack);
  return traced(client);
}

/** A DynamoDB Streams client (the stream-failure handler reads failed batches back). */
export function createDynamoDbStreamsClient(): DynamoDBStreamsClient {
  const client = withoutSdkLogging(new DynamoDBStreamsClient(clientConfig('DYNAMODB_STREAMS')));
  for (const hook of clientHooks) hook('DynamoDBStreams', client.middlewareStack);
  return traced(client);
}
