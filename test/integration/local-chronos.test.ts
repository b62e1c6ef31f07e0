import { DynamoDBClient, ListTablesCommand, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEvent, DynamoDBRecord, ScheduledEvent, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '#adapters/environment';
import type { ApiHandler } from '#local/api-gateway';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators/local-clients';

/**
 * Wiring of startLocalChronos with test doubles for every handler except the real authorizer,
 * so this file checks the runtime, not the handlers (test/e2e drives the real ones).
 */
describe('startLocalChronos', () => {
  const seen = {
    api: [] as APIGatewayProxyEvent[],
    scans: [] as ScheduledEvent[],
    sqs: [] as SQSRecord[],
    stream: [] as DynamoDBRecord[],
    deadLetters: [] as SQSRecord[],
    notices: [] as SQSRecord[],
  };
  let chronos: LocalChronos;
  let envWhileRunning: string | undefined;
  const echo: ApiHandler = async (event) => {
    seen.api.push(event);
    return { statusCode: 200, body: JSON.stringify({ authorizer: event.requestContext.authorizer }) };
  };

  beforeAll(async () => {
    chronos = await startLocalChronos({
      port: 0,
      scannerIntervalMs: 0,
      token: 'a-test-token-of-some-length',
      tenantId: 'tenant-t',
      namePrefix: 'wiring-',
      handlers: {
        api: { 'create-job': echo, 'get-job': echo, 'list-runs': echo, health: echo },
        scanner: async (event) => {
          seen.scans.push(event);
          return { materialized: 7 };
        },
        executor: async (event) => {
          seen.sqs.push(...event.Records);
          return { batchItemFailures: [] };
        },
        completion: async (event) => {
          seen.stream.push(...event.Records);
          return { batchItemFailures: [] };
        },
        deadLetter: async (event) => {
          seen.deadLetters.push(...event.Records);
          return { batchItemFailures: [] };
        },
        notifier: async (event) => {
          seen.notices.push(...event.Records);
          return { batchItemFailures: [] };
        },
      },
      log: () => {},
    });
    envWhileRunning = process.env[ENV.jobsTable];
  }, 60_000);

  afterAll(() => chronos?.stop());

  it('sets the function environment before handlers run', () => {
    expect(envWhileRunning).toBe('wiring-jobs');
    expect(chronos.tables).toMatchObject({ jobs: 'wiring-jobs', runs: 'wiring-runs' });
    expect(process.env.AWS_ENDPOINT_URL_DYNAMODB).toBe(chronos.endpoints.dynamodb);
    // Started next to the API: the system view reads the queues' oldest-message age from it.
    expect(process.env.AWS_ENDPOINT_URL_CLOUDWATCH).toBe(chronos.endpoints.cloudwatch);
    expect(chronos.endpoints.cloudwatch).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(process.env[ENV.dispatchQueueUrl]).toBe(chronos.queues.dispatch.url);
    expect(process.env[ENV.dispatchQueueUrlHigh]).toBe(chronos.queues.dispatchHigh.url);
    expect(process.env[ENV.dispatchQueueUrlLow]).toBe(chronos.queues.dispatchLow.url);
    expect(process.env[ENV.allowLoopbackTargets]).toBe('true');
    // The dev tenant's signing secret is sealed in the tenants table, never in the environment.
    expect(chronos.signingSecret).toMatch(/^whsec_/);
    expect(Object.values(process.env).join('\n')).not.toContain(chronos.signingSecret);
    expect(process.env[ENV.secretsLocalKey]).toBe(chronos.secretsLocalKey);
  });

  it('authenticates the dev token with the real authorizer and passes the tenant to the API handler', async () => {
    const denied = await fetch(`${chronos.apiUrl}/v1/jobs/j1`, {
      headers: { Authorization: 'Bearer not-the-right-token' },
    });
    expect(denied.status).toBe(401);
    const allowed = await fetch(`${chronos.apiUrl}/v1/jobs/j1`, {
      headers: { Authorization: `Bearer ${chronos.token}` },
    });
    expect(allowed.status).toBe(200);
    expect(((await allowed.json()) as { authorizer: unknown }).authorizer).toMatchObject({ tenantId: 'tenant-t' });
    expect(seen.api.at(-1)?.pathParameters).toEqual({ id: 'j1' });
  });

  it('invokes the scanner on demand with a scheduled event and returns its result', async () => {
    await expect(chronos.invokeScanner()).resolves.toEqual({ materialized: 7 });
    expect(seen.scans.at(-1)).toMatchObject({ source: 'aws.events', 'detail-type': 'Scheduled Event' });
  });

  it('feeds dispatch-queue messages to the executor', async () => {
    const sqs = new SQSClient({
      endpoint: chronos.endpoints.sqs,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
    });
    await sqs.send(new SendMessageCommand({ QueueUrl: chronos.queues.dispatch.url, MessageBody: '{"runId":"r-1"}' }));
    sqs.destroy();
    await expect.poll(() => seen.sqs.map((record) => record.body), { timeout: 5000 }).toEqual(['{"runId":"r-1"}']);
    expect(seen.sqs[0]?.eventSourceARN).toBe(chronos.queues.dispatch.arn);
  });

  it("feeds every priority lane's dispatch queue to the executor, each record naming the queue it came from", async () => {
    const sqs = new SQSClient({
      endpoint: chronos.endpoints.sqs,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
    });
    const { dispatchHigh, dispatchLow } = chronos.queues;
    await sqs.send(new SendMessageCommand({ QueueUrl: dispatchHigh.url, MessageBody: '{"runId":"r-high"}' }));
    await sqs.send(new SendMessageCommand({ QueueUrl: dispatchLow.url, MessageBody: '{"runId":"r-low"}' }));
    sqs.destroy();
    const fromLane = (body: string) => seen.sqs.find((record) => record.body === body)?.eventSourceARN;
    await expect.poll(() => fromLane('{"runId":"r-high"}'), { timeout: 5000 }).toBe(dispatchHigh.arn);
    await expect.poll(() => fromLane('{"runId":"r-low"}'), { timeout: 5000 }).toBe(dispatchLow.arn);
  });

  it('feeds the dead-letter queue to the dead-letter handler', async () => {
    const sqs = new SQSClient({
      endpoint: chronos.endpoints.sqs,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
    });
    await sqs.send(
      new SendMessageCommand({ QueueUrl: chronos.queues.deadLetter.url, MessageBody: '{"runId":"r-dead"}' }),
    );
    sqs.destroy();
    await expect
      .poll(() => seen.deadLetters.map((record) => record.body), { timeout: 5000 })
      .toEqual(['{"runId":"r-dead"}']);
    expect(seen.deadLetters[0]?.eventSourceARN).toBe(chronos.queues.deadLetter.arn);
  });

  it("feeds every priority lane's dead-letter queue to the dead-letter handler", async () => {
    const sqs = new SQSClient({
      endpoint: chronos.endpoints.sqs,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
    });
    const { deadLetterHigh, deadLetterLow } = chronos.queues;
    await sqs.send(new SendMessageCommand({ QueueUrl: deadLetterHigh.url, MessageBody: '{"runId":"d-high"}' }));
    await sqs.send(new SendMessageCommand({ QueueUrl: deadLetterLow.url, MessageBody: '{"runId":"d-low"}' }));
    sqs.destroy();
    const fromLane = (body: string) => seen.deadLetters.find((record) => record.body === body)?.eventSourceARN;
    await expect.poll(() => fromLane('{"runId":"d-high"}'), { timeout: 5000 }).toBe(deadLetterHigh.arn);
    await expect.poll(() => fromLane('{"runId":"d-low"}'), { timeout: 5000 }).toBe(deadLetterLow.arn);
  });

  it('feeds the failure-notice queue to the notifier, and tells completion where it is', async () => {
    expect(process.env[ENV.failureNoticeQueueUrl]).toBe(chronos.queues.notices.url);
    const sqs = new SQSClient({
      endpoint: chronos.endpoints.sqs,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
    });
    await sqs.send(new SendMessageCommand({ QueueUrl: chronos.queues.notices.url, MessageBody: '{"runId":"r-n"}' }));
    sqs.destroy();
    await expect.poll(() => seen.notices.map((record) => record.body), { timeout: 5000 }).toEqual(['{"runId":"r-n"}']);
    expect(seen.notices[0]?.eventSourceARN).toBe(chronos.queues.notices.arn);
  });

  it('feeds the completion handler only the run transitions it acts on or counts (into, out of QUEUED; into a terminal state)', async () => {
    const dynamodb = new DynamoDBClient({
      endpoint: chronos.endpoints.dynamodb,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
    });
    const key = { pk: { S: 'tenant-t#j1' }, sk: { S: '0000000000001#001' } };
    await dynamodb.send(
      new PutItemCommand({ TableName: chronos.tables.runs, Item: { ...key, status: { S: 'QUEUED' } } }),
    );
    // Each change: the new status and another attribute, so same-status writes are changes too.
    for (const [i, status] of ['RUNNING', 'RUNNING', 'SUCCEEDED', 'SUCCEEDED'].entries()) {
      await dynamodb.send(
        new UpdateItemCommand({
          TableName: chronos.tables.runs,
          Key: key,
          UpdateExpression: 'SET #s = :s, #n = :n',
          ExpressionAttributeNames: { '#s': 'status', '#n': 'note' },
          ExpressionAttributeValues: { ':s': { S: status }, ':n': { N: String(i) } },
        }),
      );
    }
    dynamodb.destroy();
    // INSERT as QUEUED, QUEUED → RUNNING, RUNNING → SUCCEEDED; not RUNNING → RUNNING nor SUCCEEDED → SUCCEEDED.
    await expect.poll(() => seen.stream.length, { timeout: 5000 }).toBe(3);
    expect(seen.stream.map((record) => record.dynamodb?.NewImage?.status?.S)).toEqual([
      'QUEUED',
      'RUNNING',
      'SUCCEEDED',
    ]);
    // Nothing else arrives late.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(seen.stream).toHaveLength(3);
  });

  it('stops the API and the emulators it started and restores the environment', async () => {
    const { apiUrl, endpoints } = chronos;
    await chronos.stop();
    await expect(fetch(`${apiUrl}/v1/health`)).rejects.toThrow();
    const dynamodb = new DynamoDBClient({
      endpoint: endpoints.dynamodb,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
      maxAttempts: 1,
    });
    await expect(dynamodb.send(new ListTablesCommand({}))).rejects.toThrow();
    dynamodb.destroy();
    await expect(fetch(endpoints.cloudwatch as string, { method: 'POST' })).rejects.toThrow();
    expect(process.env[ENV.jobsTable]).toBeUndefined();
    expect(process.env.AWS_ENDPOINT_URL_CLOUDWATCH).toBeUndefined();
  });
});
