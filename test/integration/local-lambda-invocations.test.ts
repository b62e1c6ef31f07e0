import { InvokeStore } from '@aws/lambda-invoke-store';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invokeLambda, LambdaTimeoutError, MAX_CONCURRENCY_ENV } from '#local/lambda-context';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const record = (messageId: string, body: string) => ({ messageId, body }) as SQSRecord;

describe('invokeLambda', () => {
  beforeAll(async () => {
    // As in the local runtime: the AWS SDK asks for the store before the variable is set.
    delete process.env[MAX_CONCURRENCY_ENV];
    await InvokeStore.getInstanceAsync();
    process.env[MAX_CONCURRENCY_ENV] = '8';
  });
  afterAll(() => {
    delete process.env[MAX_CONCURRENCY_ENV];
  });

  it('keeps a shared Powertools BatchProcessor apart between concurrent invocations', async () => {
    // One module-level processor, as in the executor: concurrent invocations must not mix batches.
    const processor = new BatchProcessor(EventType.SQS);
    const handler = (event: SQSEvent, context: Context) =>
      processPartialResponse(
        event,
        async (item: SQSRecord) => {
          await sleep(Number(item.body));
          if (item.messageId.endsWith('fail')) throw new Error('target down');
        },
        processor,
        { context },
      );
    const fn = { functionName: 'executor', timeoutSeconds: 5 };
    const [first, second] = await Promise.all([
      invokeLambda<SQSEvent, SQSBatchResponse>(
        handler,
        { Records: [record('a-ok', '40'), record('a-fail', '60')] },
        fn,
      ),
      invokeLambda<SQSEvent, SQSBatchResponse>(
        handler,
        { Records: [record('b-ok', '10'), record('b-fail', '20')] },
        fn,
      ),
    ]);
    expect(first.batchItemFailures).toEqual([{ itemIdentifier: 'a-fail' }]);
    expect(second.batchItemFailures).toEqual([{ itemIdentifier: 'b-fail' }]);
  });

  it("fails with Lambda's timeout message when the handler outlives the function timeout", async () => {
    const slow = async () => {
      await sleep(2000);
      return 'late';
    };
    await expect(invokeLambda(slow, {}, { functionName: 'scanner', timeoutSeconds: 0.05 })).rejects.toThrow(
      LambdaTimeoutError,
    );
    await expect(invokeLambda(slow, {}, { functionName: 'scanner', timeoutSeconds: 0.05 })).rejects.toThrow(
      'scanner: Task timed out after 0.05 seconds',
    );
  });

  it('gives each invocation its own request id and a remaining time below the timeout', async () => {
    const seen = await Promise.all(
      [1, 2].map(() =>
        invokeLambda(
          async (_event: unknown, context) => ({
            id: context.awsRequestId,
            remaining: context.getRemainingTimeInMillis(),
            name: context.functionName,
          }),
          {},
          {
            functionName: 'completion',
            timeoutSeconds: 30,
          },
        ),
      ),
    );
    expect(seen[0]?.id).not.toBe(seen[1]?.id);
    expect(seen[0]?.remaining).toBeGreaterThan(0);
    expect(seen[0]?.remaining).toBeLessThanOrEqual(30_000);
    expect(seen[0]?.name).toBe('completion');
  });
});
