import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessDeniedException } from '#local/aws-fidelity/access-denied';
import { enforceIam, iamMiddleware } from '#local/aws-fidelity/iam-enforcement';
import { buildPolicyTable, type LocalResources } from '#local/aws-fidelity/policy-table';
import { synthesizedStacks } from '#local/aws-fidelity/synthesized-stacks';
import { runInInvocationScope } from '#local/invoke-store';

const queue = (name: string) => ({
  name,
  url: `http://127.0.0.1:9/000000000000/${name}`,
  arn: `arn:aws:sqs:us-east-1:000000000000:${name}`,
});
const LOCAL: LocalResources = {
  tables: {
    jobs: 'l-jobs',
    runs: 'l-runs',
    workflowRuns: 'l-workflow-runs',
    metrics: 'l-metrics',
    tenants: 'l-tenants',
  },
  queues: {
    dispatch: queue('l-dispatch'),
    deadLetter: queue('l-dlq'),
    dispatchHigh: queue('l-dispatch-high'),
    deadLetterHigh: queue('l-dlq-high'),
    dispatchLow: queue('l-dispatch-low'),
    deadLetterLow: queue('l-dlq-low'),
    notices: queue('l-notices'),
    noticeDeadLetter: queue('l-ndlq'),
  },
  runsStreamArn: 'arn:aws:dynamodb:us-east-1:000000000000:table/l-runs/stream/1',
  region: 'us-east-1',
  account: '000000000000',
};

const logged: string[] = [];
let stop: () => void;
const passed = { output: { passed: true }, response: {} };
const send = (service: 'DynamoDB' | 'SQS', commandName: string, input: Record<string, unknown>) =>
  iamMiddleware(service)(async () => passed, { commandName })({ input });
const as = <T>(functionName: string, call: () => Promise<T>) => runInInvocationScope('req', call, functionName);

beforeAll(async () => {
  stop = enforceIam(buildPolicyTable(await synthesizedStacks(), LOCAL), (line) => logged.push(line));
}, 120_000);
afterAll(() => stop());

describe('the IAM middleware', () => {
  it("fails a call the invoked function's role does not grant as AWS does, naming function, action and resource, and logs it", async () => {
    const error = await as('executor', () => send('DynamoDB', 'ScanCommand', { TableName: 'l-runs' })).catch((e) => e);
    expect(error).toBeInstanceOf(AccessDeniedException);
    expect(error.name).toBe('AccessDeniedException');
    expect(error.$fault).toBe('client');
    expect(error.$metadata.httpStatusCode).toBe(400);
    expect(error.message).toMatch(
      /^User: arn:aws:sts::000000000000:assumed-role\/ExecutorFunctionRole\w+\/executor is not authorized to perform: dynamodb:Scan on resource: arn:aws:dynamodb:us-east-1:000000000000:table\/l-runs because/,
    );
    expect(logged.at(-1)).toBe(`IAM: ${error.message}`);
  });

  it('lets a granted call through, batches and transactions checked per table', async () => {
    await expect(as('executor', () => send('DynamoDB', 'UpdateItemCommand', { TableName: 'l-runs' }))).resolves.toBe(
      passed,
    );
    await expect(
      as('executor', () => send('SQS', 'SendMessageBatchCommand', { QueueUrl: LOCAL.queues.dispatch.url })),
    ).resolves.toBe(passed);
    const transact = { TransactItems: [{ Update: { TableName: 'l-runs' } }, { Put: { TableName: 'l-metrics' } }] };
    const denied = await as('executor', () => send('DynamoDB', 'TransactWriteItemsCommand', transact)).catch((e) => e);
    expect(denied.message).toMatch(/dynamodb:PutItem on resource: \S+table\/l-metrics /);
  });

  it("applies the admin stats' Scan condition: the key-only projection with Select passes, a full Scan does not", async () => {
    const keysOnly = {
      TableName: 'l-tenants',
      Select: 'SPECIFIC_ATTRIBUTES',
      ProjectionExpression: '#pk, #sk',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
    };
    await expect(as('api-monitoring-stats', () => send('DynamoDB', 'ScanCommand', keysOnly))).resolves.toBe(passed);
    await expect(
      as('api-monitoring-stats', () => send('DynamoDB', 'ScanCommand', { TableName: 'l-tenants' })),
    ).rejects.toThrow(AccessDeniedException);
    const withSecret = { ...keysOnly, ProjectionExpression: '#pk, sealed' };
    await expect(as('api-monitoring-stats', () => send('DynamoDB', 'ScanCommand', withSecret))).rejects.toThrow(
      AccessDeniedException,
    );
  });

  it('checks no call made outside an invocation, and refuses everything to a function the stack does not deploy', async () => {
    await expect(send('DynamoDB', 'ScanCommand', { TableName: 'l-runs' })).resolves.toBe(passed);
    await expect(as('not-deployed', () => send('DynamoDB', 'GetItemCommand', { TableName: 'l-runs' }))).rejects.toThrow(
      /not-deployed is not authorized/,
    );
  });
});
