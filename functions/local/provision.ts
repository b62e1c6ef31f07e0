/**
 * Creates, idempotently, the tables and queues Chronos needs on the emulators, with the same key
 * layout and indexes as the deployed stack (table-definitions.ts, read by the same rules as
 * lib/table-indexes.ts). Running it twice changes nothing.
 */
import {
  type AttributeDefinition,
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  type DynamoDBClient,
  type GlobalSecondaryIndex,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  QueueDoesNotExist,
  SetQueueAttributesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import {
  JOBS_TABLE,
  METRICS_TABLE,
  RUNS_TABLE,
  TENANTS_TABLE,
  WORKFLOW_RUNS_TABLE,
} from '#adapters/dynamodb/table-definitions';
import { type IndexDefinition, secondaryIndexes } from '#adapters/dynamodb/table-indexes';
import { MAX_TIMEOUT_SECONDS } from '#core/limits';

export interface ProvisionOptions {
  dynamodb: DynamoDBClient;
  /** Must have its `endpoint` set: queue URLs are rewritten onto it (see `onEndpoint`). */
  sqs: SQSClient;
  sqsEndpoint: string;
  /** Prepended to every table and queue name, e.g. `chronos-local-`. */
  namePrefix?: string;
  /** Receives before a message moves to the dead-letter queue. */
  maxReceiveCount?: number;
  /** Dispatch queue visibility timeout; defaults to 6 x the executor timeout, as deployed. */
  visibilityTimeoutSeconds?: number;
  /** Receives before a failure notice moves to the notifier's dead-letter queue (default 8, as deployed). */
  notifierMaxReceiveCount?: number;
}

export interface QueueInfo {
  name: string;
  url: string;
  arn: string;
}

/** The local tables' names, by the table they stand for. */
export interface LocalTables {
  jobs: string;
  runs: string;
  /** One item per workflow run (WORKFLOW_RUNS_TABLE): no stream, no index. */
  workflowRuns: string;
  metrics: string;
  tenants: string;
}

export interface ProvisionedResources {
  tables: LocalTables;
  runsStreamArn: string;
  /**
   * `dispatch` and `deadLetter`: the `normal` priority lane's dispatch queue and its dead-letter
   * queue; `dispatchHigh`, `deadLetterHigh`, `dispatchLow`, `deadLetterLow`: the other lanes'
   * (functions/core/priority.ts), alike. `notices`: failure notices for onFailure URLs (the
   * notifier's); `noticeDeadLetter`: those never delivered; `streamFailures`: runs-stream batches
   * the completion poller gave up on (the completion mapping's on-failure destination,
   * lib/constructs/completion-handler.ts).
   */
  queues: {
    dispatch: QueueInfo;
    deadLetter: QueueInfo;
    dispatchHigh: QueueInfo;
    deadLetterHigh: QueueInfo;
    dispatchLow: QueueInfo;
    deadLetterLow: QueueInfo;
    notices: QueueInfo;
    noticeDeadLetter: QueueInfo;
    streamFailures: QueueInfo;
  };
}

export const DEFAULT_NAME_PREFIX = 'chronos-local-';
export const DEFAULT_MAX_RECEIVE_COUNT = 5;
/** Executor timeout is the largest HTTP timeout + 30 s; AWS advises visibility >= 6 x timeout. */
export const DEFAULT_VISIBILITY_TIMEOUT_SECONDS = 6 * (MAX_TIMEOUT_SECONDS + 30);
const DLQ_RETENTION_SECONDS = 14 * 24 * 3600;
export const DEFAULT_NOTIFIER_MAX_RECEIVE_COUNT = 8;
/** Six times the notifier's timeout (30 s), as deployed: a notice comes back sooner through its backoff. */
export const NOTIFIER_VISIBILITY_TIMEOUT_SECONDS = 180;

/** Creates whatever is missing and returns the names, URLs and ARNs of everything. */
export async function provisionLocalResources(options: ProvisionOptions): Promise<ProvisionedResources> {
  const prefix = options.namePrefix ?? DEFAULT_NAME_PREFIX;
  const jobs = `${prefix}jobs`;
  const runs = `${prefix}runs`;
  const workflowRuns = `${prefix}workflow-runs`;
  const metrics = `${prefix}metrics`;
  const tenants = `${prefix}tenants`;
  await ensureJobsTable(options.dynamodb, jobs);
  const runsStreamArn = await ensureRunsTable(options.dynamodb, runs);
  await ensureTable(options.dynamodb, workflowRuns, WORKFLOW_RUNS_TABLE, {});
  await ensureTtl(options.dynamodb, workflowRuns, WORKFLOW_RUNS_TABLE.ttlAttribute);
  await ensureTable(options.dynamodb, metrics, METRICS_TABLE, {});
  await ensureTtl(options.dynamodb, metrics, METRICS_TABLE.ttlAttribute);
  await ensureTable(options.dynamodb, tenants, TENANTS_TABLE, {});
  await ensureTtl(options.dynamodb, tenants, TENANTS_TABLE.ttlAttribute);
  // One dispatch queue and DLQ per priority lane, alike; the normal lane keeps the names of the
  // single queue before lanes, so kept data and running tools find it where it was.
  const lane = async (suffix: string) => {
    const deadLetter = await ensureQueue(options, `${prefix}dispatch${suffix}-dlq`, {
      MessageRetentionPeriod: String(DLQ_RETENTION_SECONDS),
    });
    const dispatch = await ensureQueue(options, `${prefix}dispatch${suffix}`, {
      VisibilityTimeout: String(options.visibilityTimeoutSeconds ?? DEFAULT_VISIBILITY_TIMEOUT_SECONDS),
      RedrivePolicy: JSON.stringify({
        deadLetterTargetArn: deadLetter.arn,
        maxReceiveCount: options.maxReceiveCount ?? DEFAULT_MAX_RECEIVE_COUNT,
      }),
    });
    return { dispatch, deadLetter };
  };
  const { dispatch, deadLetter } = await lane('');
  const high = await lane('-high');
  const low = await lane('-low');
  const noticeDeadLetter = await ensureQueue(options, `${prefix}notices-dlq`, {
    MessageRetentionPeriod: String(DLQ_RETENTION_SECONDS),
  });
  const notices = await ensureQueue(options, `${prefix}notices`, {
    VisibilityTimeout: String(NOTIFIER_VISIBILITY_TIMEOUT_SECONDS),
    RedrivePolicy: JSON.stringify({
      deadLetterTargetArn: noticeDeadLetter.arn,
      maxReceiveCount: options.notifierMaxReceiveCount ?? DEFAULT_NOTIFIER_MAX_RECEIVE_COUNT,
    }),
  });
  const streamFailures = await ensureQueue(options, `${prefix}stream-failures`, {
    MessageRetentionPeriod: String(DLQ_RETENTION_SECONDS),
  });
  return {
    tables: { jobs, runs, workflowRuns, metrics, tenants },
    runsStreamArn,
    queues: {
      dispatch,
      deadLetter,
      dispatchHigh: high.dispatch,
      deadLetterHigh: high.deadLetter,
      dispatchLow: low.dispatch,
      deadLetterLow: low.deadLetter,
      notices,
      noticeDeadLetter,
      streamFailures,
    },
  };
}

async function ensureJobsTable(client: DynamoDBClient, tableName: string): Promise<void> {
  await ensureTable(client, tableName, JOBS_TABLE, {});
}

async function ensureRunsTable(client: DynamoDBClient, tableName: string): Promise<string> {
  await ensureTable(client, tableName, RUNS_TABLE, {
    StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
  });
  await ensureTtl(client, tableName, RUNS_TABLE.ttlAttribute);
  const table = await describeTable(client, tableName);
  const streamArn = table?.LatestStreamArn;
  if (!streamArn) throw new Error(`Table ${tableName} exists without a stream; delete it and provision again`);
  return streamArn;
}

async function ensureTtl(client: DynamoDBClient, tableName: string, attributeName: string): Promise<void> {
  const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  if (ttl.TimeToLiveDescription?.TimeToLiveStatus !== 'ENABLED') {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: attributeName, Enabled: true },
      }),
    );
  }
}

/** Creates the table with every declared index, or adds the indexes an existing table lacks. */
async function ensureTable(
  client: DynamoDBClient,
  tableName: string,
  definition: { partitionKey: string; sortKey: string },
  extra: Pick<CreateTableCommandInput, 'StreamSpecification'>,
): Promise<void> {
  const indexes = secondaryIndexes(definition);
  const existing = await describeTable(client, tableName);
  if (!existing) {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: attributeDefinitions([
          { AttributeName: definition.partitionKey, AttributeType: 'S' },
          { AttributeName: definition.sortKey, AttributeType: 'S' },
          ...indexes.flatMap(indexAttributes),
        ]),
        KeySchema: [
          { AttributeName: definition.partitionKey, KeyType: 'HASH' },
          { AttributeName: definition.sortKey, KeyType: 'RANGE' },
        ],
        ...(indexes.length > 0 ? { GlobalSecondaryIndexes: indexes.map(toGsi) } : {}),
        ...extra,
      }),
    );
    return;
  }
  const present = new Set((existing.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  // DynamoDB creates one index per UpdateTable call.
  for (const index of indexes.filter((i) => !present.has(i.name))) {
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: indexAttributes(index),
        GlobalSecondaryIndexUpdates: [{ Create: toGsi(index) }],
      }),
    );
  }
}

function indexAttributes(index: IndexDefinition): AttributeDefinition[] {
  return [
    { AttributeName: index.partitionKey, AttributeType: 'S' },
    ...(index.sortKey ? [{ AttributeName: index.sortKey, AttributeType: 'N' as const }] : []),
  ];
}

function attributeDefinitions(all: AttributeDefinition[]): AttributeDefinition[] {
  return all.filter((attribute, i) => all.findIndex((a) => a.AttributeName === attribute.AttributeName) === i);
}

function toGsi(index: IndexDefinition): GlobalSecondaryIndex {
  return {
    IndexName: index.name,
    KeySchema: [
      { AttributeName: index.partitionKey, KeyType: 'HASH' },
      ...(index.sortKey ? [{ AttributeName: index.sortKey, KeyType: 'RANGE' as const }] : []),
    ],
    Projection: index.projectedAttributes
      ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projectedAttributes] }
      : { ProjectionType: 'ALL' },
  };
}

async function describeTable(client: DynamoDBClient, tableName: string) {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return undefined;
    throw error;
  }
}

async function ensureQueue(
  options: ProvisionOptions,
  name: string,
  attributes: Record<string, string>,
): Promise<QueueInfo> {
  const { sqs } = options;
  let url: string;
  try {
    url = onEndpoint((await sqs.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl, options.sqsEndpoint);
    await sqs.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: attributes }));
  } catch (error) {
    if (!(error instanceof QueueDoesNotExist)) throw error;
    const created = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
    url = onEndpoint(created.QueueUrl, options.sqsEndpoint);
  }
  const described = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
  const arn = described.Attributes?.QueueArn;
  if (!arn) throw new Error(`Queue ${name} has no ARN`);
  return { name, url, arn };
}

/**
 * fauxqs names queues `http://sqs.<region>.localhost:<port>/<account>/<name>`, a host that does
 * not resolve here, and the SDK sends to the queue URL's host unless a client sets `endpoint`.
 * Handlers configure their clients only through AWS_ENDPOINT_URL_SQS, so hand them the same
 * queue path on the endpoint itself: on AWS, too, the queue URL's origin is the SQS endpoint.
 */
export function onEndpoint(queueUrl: string | undefined, endpoint: string): string {
  if (!queueUrl) throw new Error('SQS returned no queue URL');
  return new URL(new URL(queueUrl).pathname, endpoint).toString();
}
