/**
 * The completion stream's failures, on the emulators: a runs-stream batch the completion handler
 * keeps failing goes, as on AWS, to the on-failure queue as coordinates only (shard and sequence
 * numbers); the stream-failure handler reads the records back from DynamoDB Local's stream and
 * completes their runs through the real completion use case, so the job ends after all. A range the
 * stream no longer holds is retried, then counted (StreamRecordsLost) and logged.
 */
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { metrics } from '#handlers/observability';
import {
  handleStreamFailures,
  parseFailedStreamBatch,
  STREAM_FAILURE_MAX_RECEIVES,
  STREAM_FAILURE_METRICS,
  handler as streamFailuresHandler,
} from '#handlers/stream-failures';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { invokeLambda } from '#local/lambda-context';
import { eventually, type HttpTarget, startHttpTarget } from '../support/http-target.ts';

let chronos: LocalChronos;
let target: HttpTarget;
const logs: string[] = [];
let completionInvocations = 0;

beforeAll(async () => {
  target = await startHttpTarget(() => ({ status: 200, body: 'done' }));
  chronos = await startLocalChronos({
    port: 0,
    scannerIntervalMs: 3_600_000,
    namePrefix: 'stream-failures-',
    handlers: {
      // A completion handler that fails every batch: what a bug or an outage of its own looks like.
      completion: async () => {
        completionInvocations++;
        throw new Error('completion is down');
      },
      streamFailures: streamFailuresHandler,
    },
    log: (message) => logs.push(message),
  });
}, 60_000);
afterAll(async () => {
  await chronos?.stop();
  await target?.close();
});

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(`${chronos.apiUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${chronos.token}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** The handler as Lambda runs it (with its invocation context), minus the metrics flush. */
const invoke = (event: SQSEvent) =>
  invokeLambda(handleStreamFailures, event, { functionName: 'stream-failures', timeoutSeconds: 30 });
function sqsEvent(body: string, receiveCount: number): SQSEvent {
  return {
    Records: [
      {
        messageId: `m-${receiveCount}-${Math.random()}`,
        receiptHandle: 'r',
        body,
        attributes: { ApproximateReceiveCount: String(receiveCount) } as never,
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: chronos.queues.streamFailures.arn,
        awsRegion: 'us-east-1',
      },
    ],
  };
}

describe('a runs-stream batch the completion handler gives up on', () => {
  it('is read back from the stream and its run completed: the one-time job ends COMPLETED', async () => {
    const created = await api('POST', '/v1/jobs', {
      name: 'completed-after-all',
      target: { url: target.url('/once'), method: 'POST' },
      schedule: { type: 'once' },
    });
    expect(created.status).toBe(201);
    const jobId = created.body.jobId as string;
    await target.waitForCalls('/once', 1, 15_000);

    const job = await eventually(
      () => api('GET', `/v1/jobs/${jobId}`).then((r) => r.body),
      (body) => body.status === 'COMPLETED',
      45_000,
    );
    expect(job.status).toBe('COMPLETED');
    // The completion handler never succeeded: the job was finished by the stream-failure path.
    expect(completionInvocations).toBeGreaterThan(1);
    const runs = await api('GET', `/v1/jobs/${jobId}/runs`);
    expect(runs.body.items.map((run: { status: string }) => run.status)).toEqual(['SUCCEEDED']);
  }, 60_000);

  it('is retried while its range cannot be found, then counted as lost and acknowledged', async () => {
    const addMetric = vi.spyOn(metrics, 'addMetric');
    const body = JSON.stringify({
      requestContext: { condition: 'RetryAttemptsExhausted' },
      DDBStreamBatchInfo: {
        shardId: 'shardId-00000000000000000000-00000000',
        startSequenceNumber: '000000000000000000100',
        endSequenceNumber: '000000000000000000200',
        batchSize: 1,
        streamArn: chronos.runsStreamArn,
      },
    });
    // One message per batch: its failure fails the invocation, and SQS hands it out again.
    await expect(invoke(sqsEvent(body, 1))).rejects.toThrow(/All records failed/);
    expect(addMetric).not.toHaveBeenCalledWith(STREAM_FAILURE_METRICS.lost, expect.anything(), expect.anything());

    const last = await invoke(sqsEvent(body, STREAM_FAILURE_MAX_RECEIVES));
    expect(last.batchItemFailures).toEqual([]);
    expect(addMetric).toHaveBeenCalledWith(STREAM_FAILURE_METRICS.lost, 'Count', 1);
    addMetric.mockRestore();
  });

  it("sets aside a message that is not an on-failure record of this stage's runs stream", async () => {
    const addMetric = vi.spyOn(metrics, 'addMetric');
    const otherStream = JSON.stringify({
      DDBStreamBatchInfo: {
        shardId: 'shardId-00000000000000000000-00000001',
        startSequenceNumber: '000000000000000000001',
        endSequenceNumber: '000000000000000000002',
        streamArn: 'arn:aws:dynamodb:us-east-1:000000000000:table/other/stream/x',
      },
    });
    for (const body of ['not json', '{}', otherStream]) {
      const result = await invoke(sqsEvent(body, 1));
      expect(result.batchItemFailures, body).toEqual([]);
    }
    expect(addMetric.mock.calls.filter(([name]) => name === 'RecordsSetAside')).toHaveLength(3);
    expect(() =>
      parseFailedStreamBatch(
        JSON.stringify({
          DDBStreamBatchInfo: {
            shardId: 'shardId-00000000000000000000-00000001',
            startSequenceNumber: '900000000000000000000',
            endSequenceNumber: '100000000000000000000',
            streamArn: 'a',
          },
        }),
        'a',
      ),
    ).toThrow(/ends before it starts/);
    addMetric.mockRestore();
  });
});
