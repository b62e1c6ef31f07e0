/**
 * The workflow-runs table in the local runtime, as on AWS: provisioned next to the other tables,
 * named to the functions by WORKFLOW_RUNS_TABLE_NAME, and guarded by the synthesized IAM policies.
 * A function granted the table (the executor, the completion and stream-failure handlers: get,
 * put, update) reaches DynamoDB Local with the handlers' own client; one without the grant, or an
 * action outside it, is refused with AccessDenied before the request leaves the process.
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '#adapters/aws-clients';
import { ENV } from '#adapters/environment';
import { DEFAULT_QUOTAS } from '#core/tenants/quotas';
import { AccessDeniedException } from '#local/aws-fidelity/access-denied';
import { startLocalIam } from '#local/aws-fidelity/local-iam';
import { synthesizedStacks } from '#local/aws-fidelity/synthesized-stacks';
import { type RunningEmulator, startDynamoDbLocal } from '#local/emulators/dynamodb-local';
import { startSqsEmulator } from '#local/emulators/fauxqs';
import { createLocalClients, LOCAL_REGION, type LocalClients } from '#local/emulators/local-clients';
import { functionEnvironment, setEnvironment } from '#local/function-environment';
import { runInInvocationScope } from '#local/invoke-store';
import { LOCAL_ACCOUNT_ID } from '#local/lambda-context';
import { type ProvisionedResources, provisionLocalResources } from '#local/provision';

let dynamo: RunningEmulator;
let sqsEmulator: RunningEmulator;
let clients: LocalClients;
let resources: ProvisionedResources;
let stopIam: () => void;
let restoreEnvironment: () => void;
const denials: string[] = [];

beforeAll(async () => {
  [dynamo, sqsEmulator] = await Promise.all([startDynamoDbLocal(), startSqsEmulator()]);
  const endpoints = { dynamodb: dynamo.endpoint, sqs: sqsEmulator.endpoint };
  clients = createLocalClients(endpoints);
  resources = await provisionLocalResources({
    dynamodb: clients.dynamodb,
    sqs: clients.sqs,
    sqsEndpoint: sqsEmulator.endpoint,
    namePrefix: 'wfiam-',
  });
  // The environment every local function gets, as startLocalChronos sets it.
  restoreEnvironment = setEnvironment(
    functionEnvironment({
      endpoints,
      resources,
      quotas: DEFAULT_QUOTAS,
      secretsLocalKey: Buffer.alloc(32).toString('base64'),
      allowLoopbackTargets: true,
      concurrency: 1,
      dueShardCount: 1,
      scanHorizonSeconds: 90,
    }),
  );
  const iam = startLocalIam(
    await synthesizedStacks(),
    { ...resources, region: LOCAL_REGION, account: LOCAL_ACCOUNT_ID },
    {},
    (line) => denials.push(line),
  );
  stopIam = iam.stop;
}, 120_000);

afterAll(async () => {
  stopIam?.();
  restoreEnvironment?.();
  clients?.destroy();
  await Promise.all([dynamo?.stop(), sqsEmulator?.stop()]);
});

/** Runs `call` as an invocation of the local function `functionName`. */
const as = <T>(functionName: string, call: () => Promise<T>) =>
  runInInvocationScope(`req-${functionName}`, call, functionName);
const tableArn = () => `arn:aws:dynamodb:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:table/${resources.tables.workflowRuns}`;
const key = (sk: string) => ({ pk: 'tenant-a#wf01JWORKFLOW', sk });

describe('the workflow-runs table locally', () => {
  it('is named to the functions by WORKFLOW_RUNS_TABLE_NAME, the table provisioning made', () => {
    expect(resources.tables.workflowRuns).toBe('wfiam-workflow-runs');
    expect(process.env[ENV.workflowRunsTable]).toBe(resources.tables.workflowRuns);
  });

  it('lets the executor put and get a workflow run, and the completion and stream-failure handlers replace it', async () => {
    const documents = createDocumentClient();
    const TableName = process.env[ENV.workflowRunsTable];
    const Key = key('1780000000000');
    await as('executor', () =>
      documents.send(
        new PutCommand({
          TableName,
          Item: { ...Key, status: 'RUNNING', round: 0 },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
    const read = await as('executor', () => documents.send(new GetCommand({ TableName, Key, ConsistentRead: true })));
    expect(read.Item).toMatchObject({ status: 'RUNNING', round: 0 });
    await as('completion', () =>
      documents.send(
        new PutCommand({
          TableName,
          Item: { ...Key, status: 'SUCCEEDED', round: 0 },
          ConditionExpression: '#status = :running',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':running': 'RUNNING' },
        }),
      ),
    );
    // The stream-failure handler completes runs as the completion handler does.
    await as('stream-failures', () => documents.send(putOf(Key, 'FAILED')));
    // Outside any invocation nothing is checked: the test reads what is really stored.
    const after = await documents.send(new GetCommand({ TableName, Key, ConsistentRead: true }));
    expect(after.Item?.status).toBe('FAILED');
  });

  it.each([
    ['scanner', 'GetItem', () => new GetCommand({ TableName: process.env[ENV.workflowRunsTable], Key: key('1') })],
    [
      'api-list-jobs',
      'PutItem',
      () => new PutCommand({ TableName: process.env[ENV.workflowRunsTable], Item: { ...key('2'), status: 'RUNNING' } }),
    ],
    ['dead-letter', 'UpdateItem', () => updateOf(key('1'))],
  ] as const)('refuses %s, which has no grant on it, dynamodb:%s with AccessDenied', async (fn, action, command) => {
    const documents = createDocumentClient();
    const error = await as(fn, () => documents.send(command() as never)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AccessDeniedException);
    expect((error as Error).message).toContain(
      `/${fn} is not authorized to perform: dynamodb:${action} on resource: ${tableArn()} `,
    );
    expect(denials.at(-1)).toBe(`IAM: ${(error as Error).message}`);
  });

  it('refuses the executor what its grant leaves out (update in place, delete, query), and the refused writes never reach the table', async () => {
    const documents = createDocumentClient();
    const TableName = process.env[ENV.workflowRunsTable];
    const Key = key('1780000001000');
    await as('executor', () => documents.send(new PutCommand({ TableName, Item: { ...Key, status: 'RUNNING' } })));
    const updated = await as('executor', () => documents.send(updateOf(Key))).catch((e) => e);
    expect(updated).toBeInstanceOf(AccessDeniedException);
    expect(updated.message).toContain(`dynamodb:UpdateItem on resource: ${tableArn()} `);
    const deleted = await as('executor', () => documents.send(new DeleteCommand({ TableName, Key }))).catch((e) => e);
    expect(deleted).toBeInstanceOf(AccessDeniedException);
    expect(deleted.message).toContain(`dynamodb:DeleteItem on resource: ${tableArn()} `);
    const queried = await as('completion', () =>
      documents.send(
        new QueryCommand({
          TableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': Key.pk },
        }),
      ),
    ).catch((e) => e);
    expect(queried).toBeInstanceOf(AccessDeniedException);
    expect(queried.message).toContain(`dynamodb:Query on resource: ${tableArn()} `);
    const still = await documents.send(new GetCommand({ TableName, Key, ConsistentRead: true }));
    expect(still.Item).toMatchObject({ status: 'RUNNING' });
  });
});

function updateOf(Key: Record<string, string>, status = 'CANCELLED') {
  return new UpdateCommand({
    TableName: process.env[ENV.workflowRunsTable],
    Key,
    UpdateExpression: 'SET #status = :s',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':s': status },
  });
}

function putOf(Key: Record<string, string>, status: string) {
  return new PutCommand({ TableName: process.env[ENV.workflowRunsTable], Item: { ...Key, status } });
}
